package ark.broker.mcp;

import ark.broker.mcp.protocol.SignedEventIds;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The attack of issue 22: an agent sends a Last-Event-ID naming another principal's question and resumes it
 * while that question is being answered. Round after round, the resumption must get nothing of the question
 * (its content, recipient, answer or who answered), however the answer and the resumption interleave: a forged
 * token is refused, and even a token signed with the broker's key gets only what a read would give its caller.
 */
class ResumptionRaceTest {
  private static final int ROUNDS = 30;
  /** Resumptions sent just before the answer, and as many just after, so that some straddle it. */
  private static final int BURST = 12;
  private static final String KEY = "resumption-race-test-key-0123456789abcdef";
  private static final String ATTACKER_OWNER = "agent " + OTHER_AGENT_NAME;

  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = BrokerExtension.withIdentities(new JsonObject()
      // The race is about ordering, not durability: without fsync the answer lands sooner, in more windows.
      .put("store", new JsonObject().put("fsync", false))
      .put("budgets", new JsonObject().put("createsPerMinute", 0).put("maxPendingQuestions", 0))
      .put("mcp", new JsonObject().put("streamTokenKeys", new JsonArray().add(KEY))), started -> broker = started);

  /**
   * What an attacker can build without the server's help: the token as it looked on the wire before it was signed
   * (base64url JSON), naming {@code questionId}, tagged with a hash of its own session id.
   */
  private static String unsignedEventId(String attackerSession, String questionId) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(attackerSession.getBytes(StandardCharsets.UTF_8));
      String tag = Base64.getUrlEncoder().withoutPadding().encodeToString(hash).substring(0, 16);
      JsonObject token = new JsonObject().put("i", 1).put("k", "ask").put("s", new JsonObject().put("q", questionId))
          .put("p", "steal").put("n", tag);
      return Base64.getUrlEncoder().withoutPadding().encodeToString(token.encode().getBytes(StandardCharsets.UTF_8)) + ".1";
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aForgedResumptionRacingAnAnswerLearnsNothingOfTheQuestion() throws Exception {
    McpTestClient attacker = new McpTestClient(broker.mcp).withToken(OTHER_AGENT).initialize();

    assertThat(leaksRacingAnswers(attacker, id -> unsignedEventId(attacker.sessionId, id)))
        .as("forged resumptions that learned something of another agent's question").isEmpty();
  }

  @Test
  void evenASignedTokenForAQuestionItsCallerMayNotSeeLearnsNothingOfIt() throws Exception {
    McpTestClient attacker = new McpTestClient(broker.mcp).withToken(OTHER_AGENT).initialize();

    assertThat(leaksRacingAnswers(attacker, id -> SignedEventIds.waitingFor(KEY, attacker.sessionId, ATTACKER_OWNER,
        pick(id, "ask", "task-result"), id)))
        .as("resumptions, signed with the broker's key, that learned something of another agent's question").isEmpty();
  }

  @Test
  void aServiceResumingForAnotherAgentThanItAskedForGetsNothingOfTheQuestion() throws Exception {
    String otherAgent = "ark://agents/team-a/someone-else";
    McpTestClient service = new McpTestClient(broker.mcp).withToken(SERVICE).initialize();
    JsonObject call = service.message("tools/call", new JsonObject().put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", HUMAN_NAME).put("content", "Merge the release branch?"))
        .put("_meta", new JsonObject().put(Caller.META_AGENT, AGENT_NAME).put("progressToken", "p")));
    String eventId = service.cutAfterFirstEvent(call);
    String id = broker.as(ADMIN).listAll("sender=" + AGENT_NAME).stream()
        .filter(question -> question.getString("content").equals("Merge the release branch?"))
        .findFirst().orElseThrow().getString("id");
    assertThat(broker.as(HUMAN).patch("/questions/" + id, new JsonObject().put("response", "merge it").encode()).status())
        .isEqualTo(200);

    HttpResponse<String> forOther = service.http.send(service.withSession(HttpRequest.newBuilder(broker.mcp)
        .header("Accept", "text/event-stream").header("Last-Event-ID", eventId).header("X-Ark-Agent", otherAgent).GET())
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(forOther.body()).contains("not found").doesNotContain("merge it").doesNotContain(HUMAN_NAME)
        .doesNotContain("Merge the release branch");

    try (SseStream resumed = SseStream.open(service.http, service.withSession(HttpRequest.newBuilder(broker.mcp)
        .header("Accept", "text/event-stream").header("Last-Event-ID", eventId).header("X-Ark-Agent", AGENT_NAME).GET())
        .build())) {
      assertThat(McpTestClient.answerTo(call, McpTestClient.nextResponse(resumed))).isEqualTo("merge it");
    }
  }

  private static String pick(String id, String one, String other) {
    return (id.hashCode() & 1) == 0 ? one : other;
  }

  /**
   * Rounds of: the agent AGENT asks ann a question, ann answers it, and around the answer {@code attacker}
   * resumes with the event id {@code eventIdFor} gives for the question. Returns what any resumption saw of it.
   */
  private static List<String> leaksRacingAnswers(McpTestClient attacker, UnaryOperator<String> eventIdFor) throws Exception {
    List<String> leaks = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      String content = "Launch plan " + round + "?";
      String answer = "launch-code-" + round;
      TestBroker.Response asked = broker.as(AGENT).post("/questions",
          new JsonObject().put("recipient", HUMAN_NAME).put("content", content).encode());
      assertThat(asked.status()).as(asked.body()).isEqualTo(201);
      String id = asked.json().getString("id");

      HttpRequest resume = attacker.withSession(HttpRequest.newBuilder(broker.mcp).header("Accept", "text/event-stream")
          .header("Last-Event-ID", eventIdFor.apply(id)).GET()).build();
      List<CompletableFuture<HttpResponse<String>>> resumptions = new ArrayList<>();
      for (int i = 0; i < BURST; i++) {
        resumptions.add(attacker.http.sendAsync(resume, HttpResponse.BodyHandlers.ofString()));
      }
      CompletableFuture<TestBroker.Response> answered = CompletableFuture.supplyAsync(() -> {
        try {
          return broker.as(HUMAN).patch("/questions/" + id, new JsonObject().put("response", answer).encode());
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      for (int i = 0; i < BURST; i++) {
        resumptions.add(attacker.http.sendAsync(resume, HttpResponse.BodyHandlers.ofString()));
      }
      assertThat(answered.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
      for (CompletableFuture<HttpResponse<String>> resumption : resumptions) {
        HttpResponse<String> seen = resumption.get(20, TimeUnit.SECONDS);
        if (seen.body().contains(answer) || seen.body().contains(content) || seen.body().contains(HUMAN_NAME)) {
          leaks.add("round " + round + ": " + seen.statusCode() + " " + seen.body());
        }
      }
    }
    return leaks;
  }
}
