package ark.broker.mcp;

import ark.broker.mcp.protocol.SignedEventIds;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.SseStream.SseEvent;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Last-Event-ID is the client's to send, so it may be forged: only exactly a token this server signed
 * for this session, carrying the state its kind needs, resumes anything. Everything else gets 400 with a
 * JSON-RPC error at once, and no stream is left open.
 */
class ForgedResumptionTest {
  /** The broker's key, known here so that a test can sign what only the broker should. */
  private static final String KEY = "forged-resumption-test-key-0123456789";

  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(
      new JsonObject().put("mcp", new JsonObject().put("streamTokenKeys", new JsonArray().add(KEY))), started -> broker = started);

  /** Who owns every session of an open broker, as the MCP door names it. */
  private static final String ANONYMOUS_OWNER = "admin ark://users/anonymous";

  private static JsonObject ask() {
    return new JsonObject().put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", TestBroker.someone()).put("content", "Resume me?"));
  }

  /** The event id of a cut {@code ask_question} stream of {@code client}. */
  private static String cutAsk(McpTestClient client) throws Exception {
    return client.cutAfterFirstEvent(client.message("tools/call", ask()));
  }

  /** {@code eventId} with its token's JSON changed by {@code change}, encoded as the server encodes, its signature kept. */
  private static String forged(String eventId, Consumer<JsonObject> change) {
    int dot = eventId.indexOf('.');
    JsonObject token = new JsonObject(new String(Base64.getUrlDecoder().decode(eventId.substring(0, dot)), StandardCharsets.UTF_8));
    change.accept(token);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(token.encode().getBytes(StandardCharsets.UTF_8))
        + eventId.substring(dot);
  }

  /** GET with Last-Event-ID, read to its end: a refusal must come at once, not as a stream held open. */
  private static HttpResponse<String> resume(McpTestClient client, String lastEventId) throws Exception {
    HttpRequest request = client.withSession(HttpRequest.newBuilder(broker.mcp).header("Accept", "text/event-stream")
        .header("Last-Event-ID", lastEventId).GET()).build();
    return client.http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).get(5, TimeUnit.SECONDS);
  }

  private static void assertRefused(HttpResponse<String> response, String message) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    JsonObject error = new JsonObject(response.body()).getJsonObject("error");
    assertThat(error.getInteger("code")).isEqualTo(-32600);
    assertThat(error.getString("message")).startsWith("Bad Request: ").contains(message);
  }

  @Test
  void aTokenChangedInAnyWayIsRefusedAtOnce() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String eventId = cutAsk(client);
    String notIssued = "not a token this server issued to this session";

    assertRefused(resume(client, forged(eventId, token -> token.put("s", new JsonObject().put("q", "q-someone-elses")))), notIssued);
    assertRefused(resume(client, forged(eventId, token -> token.put("s", new JsonObject().put("q", 42)))), notIssued);
    assertRefused(resume(client, forged(eventId, token -> token.remove("s"))), notIssued);
    assertRefused(resume(client, forged(eventId, token -> token.put("k", "shell"))), notIssued);
    assertRefused(resume(client, forged(eventId, token -> token.put("admin", true))), notIssued);
    assertRefused(resume(client, eventId.substring(0, eventId.indexOf('.')) + ".1"), "not <stream>.<signature>.<sequence>");
    assertRefused(resume(client, "bm90IGpzb24.0"), "not <stream>.<signature>.<sequence>");
    assertRefused(resume(client, eventId + "x"), "not <stream>.<signature>.<sequence>");
  }

  @Test
  void anotherSessionsStreamIsNotResumedAndStaysResumableByItsOwn() throws Exception {
    McpTestClient owner = new McpTestClient(broker.mcp).initialize();
    McpTestClient other = new McpTestClient(broker.mcp).initialize();
    String eventId = cutAsk(owner);

    assertRefused(resume(other, eventId), "not a token this server issued to this session");

    try (SseStream resumed = owner.get(eventId)) {
      assertThat(resumed.status).isEqualTo(200);
      assertThat(resumed.next().data()).as("priming event").isEmpty();
    }
  }

  @Test
  void aSignedTokenOfAKindThisServerDoesNotResumeIsRefused() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();

    assertRefused(resume(client, SignedEventIds.waitingFor(KEY, client.sessionId, ANONYMOUS_OWNER, "shell", "q-1")),
        "resumes no stream of kind 'shell'");
  }

  @Test
  void aSignedTokenForAQuestionThatDoesNotExistEndsTheStreamWithAnError() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String eventId = SignedEventIds.waitingFor(KEY, client.sessionId, ANONYMOUS_OWNER, "ask", "q-nobody-asked");

    try (SseStream resumed = client.get(eventId)) {
      JsonObject error = McpTestClient.nextResponse(resumed).getJsonObject("error");
      assertThat(error.getInteger("code")).isEqualTo(-32602);
      assertThat(error.getString("message")).contains("q-nobody-asked").contains("not found");
      SseEvent end = resumed.next(5, TimeUnit.SECONDS);
      assertThat(end).isNotNull();
      assertThat(end.event()).isEqualTo("end-of-stream");
    }
  }
}
