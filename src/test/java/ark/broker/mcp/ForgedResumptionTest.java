package ark.broker.mcp;

import ark.broker.mcp.protocol.StreamToken;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.SseStream.SseEvent;
import ark.broker.testing.TestBroker;
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
 * A Last-Event-ID is the client's to send, so it may be forged: only exactly a token this server issued
 * to this session, carrying the state its kind needs, resumes anything. Everything else gets 400 with a
 * JSON-RPC error at once, and no stream is left open.
 */
class ForgedResumptionTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(started -> broker = started);

  private static JsonObject ask() {
    return new JsonObject().put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", TestBroker.someone()).put("content", "Resume me?"));
  }

  /** The event id of a cut {@code ask_question} stream of {@code client}. */
  private static String cutAsk(McpTestClient client) throws Exception {
    return client.cutAfterFirstEvent(client.message("tools/call", ask()));
  }

  /** {@code eventId} with its token's JSON changed by {@code change}, encoded as the server encodes. */
  private static String forged(String eventId, Consumer<JsonObject> change) {
    int dot = eventId.lastIndexOf('.');
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
  void aTokenWhoseStateHasTheWrongTypesIsRefusedAtOnce() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String eventId = cutAsk(client);

    assertRefused(resume(client, forged(eventId, token -> token.put("s", new JsonObject().put("q", 42)))),
        "does not carry what a stream of kind 'ask' needs");
    assertRefused(resume(client, forged(eventId, token -> token.put("s", "q-1"))), "does not carry");
    assertRefused(resume(client, forged(eventId, token -> token.remove("s"))), "does not carry");
    assertRefused(resume(client, forged(eventId, token -> token.getJsonObject("s").put("extra", true))), "does not carry");
    assertRefused(resume(client, forged(eventId, token -> token.put("i", new JsonObject()))), "no request id");
    assertRefused(resume(client, forged(eventId, token -> token.put("k", "shell"))),
        "resumes no stream of kind 'shell'");
    assertRefused(resume(client, forged(eventId, token -> token.put("admin", true))), "unknown field");
    assertRefused(resume(client, "bm90IGpzb24.0"), "not a token this server issued");
    assertRefused(resume(client, eventId + "x"), "not <stream>.<sequence>");
  }

  @Test
  void anotherSessionsStreamIsNotResumedAndStaysResumableByItsOwn() throws Exception {
    McpTestClient owner = new McpTestClient(broker.mcp).initialize();
    McpTestClient other = new McpTestClient(broker.mcp).initialize();
    String eventId = cutAsk(owner);

    assertRefused(resume(other, eventId), "belongs to a stream of another session");
    assertRefused(resume(other, forged(eventId, token -> token.put("n", StreamToken.sessionTag("made-up")))),
        "another session");

    try (SseStream resumed = owner.get(eventId)) {
      assertThat(resumed.status).isEqualTo(200);
      assertThat(resumed.next().data()).as("priming event").isEmpty();
    }
  }

  @Test
  void aWellFormedTokenForAQuestionThatDoesNotExistEndsTheStreamWithAnError() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String eventId = forged(cutAsk(client), token -> token.put("s", new JsonObject().put("q", "q-nobody-asked")));

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
