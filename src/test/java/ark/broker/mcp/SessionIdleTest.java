package ark.broker.mcp;

import ark.broker.bus.Addresses;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Abandoned MCP sessions end after the idle timeout; sessions in use, or waiting for a person, do not. */
class SessionIdleTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(
      new JsonObject().put("mcp", new JsonObject().put("sessionIdleSeconds", 1)), started -> broker = started);

  /** Whether the store still has the session, asked without using it. */
  private static boolean stored(String sessionId) {
    return Addresses.MCP_SESSION_STORE.client(broker.vertx.eventBus(), 10_000).find(sessionId)
        .map(document -> document != null)
        .toCompletionStage().toCompletableFuture().join();
  }

  @Test
  void anAbandonedSessionEndsAndThenAnswers404() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();

    Eventually.until("the idle session ends", () -> stored(client.sessionId), stored -> !stored);

    assertThat(client.call("ping", null).status()).isEqualTo(404);
  }

  @Test
  void aSessionInUseOutlivesTheIdleTimeout() throws Exception {
    McpTestClient busy = new McpTestClient(broker.mcp).initialize();
    McpTestClient abandoned = new McpTestClient(broker.mcp).initialize();

    Eventually.until("the abandoned session ends", () -> {
      assertThat(busy.call("ping", null).status()).isEqualTo(200);
      return stored(abandoned.sessionId);
    }, stored -> !stored);

    assertThat(busy.call("ping", null).status()).isEqualTo(200);
  }

  @Test
  void aSessionWaitingForAPersonDoesNotEnd() throws Exception {
    McpTestClient waiting = new McpTestClient(broker.mcp).initialize();
    McpTestClient abandoned = new McpTestClient(broker.mcp).initialize();
    JsonObject call = waiting.message("tools/call", new JsonObject().put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", "ark://users/slow").put("content", "Take your time")));
    try (SseStream stream = waiting.stream(call)) {
      stream.next();
      Eventually.until("the abandoned session ends", () -> stored(abandoned.sessionId), stored -> !stored);

      assertThat(stored(waiting.sessionId)).isTrue();
      JsonArray pending = broker.get("/questions?recipient=ark://users/slow").json().getJsonArray("items");
      broker.patch("/questions/" + pending.getJsonObject(0).getString("id"), "{\"response\":\"done\"}");
      assertThat(McpTestClient.nextResponse(stream).getJsonObject("result").getJsonObject("structuredContent")
          .getString("response")).isEqualTo("done");
    }
  }
}
