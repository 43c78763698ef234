package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.CapturedLog;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.McpTestClient.Reply;
import ark.broker.testing.TestBroker;
import ch.qos.logback.classic.Level;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ark as it ships sends no identity of the agent or the Query: the broker still asks, and says once in its log
 * what it could not attribute and how to fix it, however many questions follow.
 */
class UnattributedQuestionsTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = BrokerExtension.withIdentities(started -> broker = started);

  /** Asks as a task (so the call returns at once) with {@code headers}, and checks the question was asked. */
  private static void ask(String token, Map<String, String> headers) throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).withToken(token).initialize();
    JsonObject call = client.message("tools/call", new JsonObject().put("name", "ask_question").put("task", new JsonObject())
        .put("arguments", new JsonObject().put("recipient", TestBroker.someone()).put("content", "Ship it?")));
    var request = client.post(call.encode());
    headers.forEach(request::header);
    Reply reply = client.send(request.build());
    assertThat(reply.response().containsKey("result")).as(reply.response().encode()).isTrue();
  }

  @Test
  void questionsWithoutAQueryOrAnAgentAreAskedAndTheLogSaysSoOnce() throws Exception {
    CapturedLog log = CapturedLog.of(Caller.class);
    try (log) {
      // The executor's token alone, as with only the MCPServer's Authorization header.
      ask(SERVICE, Map.of());
      ask(SERVICE, Map.of());
      ask(AGENT, Map.of());
      // Named through the headers of the Agent's and the Query's overrides: nothing more to say.
      ask(SERVICE, Map.of("X-Ark-Agent", AGENT_NAME, "X-Ark-Query-Namespace", "team-a", "X-Ark-Query-Name", "q1"));
    }

    assertThat(log.events()).filteredOn(event -> event.getLevel() == Level.INFO).singleElement()
        .satisfies(event -> assertThat(event.getFormattedMessage())
            .contains("without naming its Query", "X-Ark-Query-Name", "spec.overrides"));
    assertThat(log.events()).filteredOn(event -> event.getLevel() == Level.WARN).singleElement()
        .satisfies(event -> assertThat(event.getFormattedMessage())
            .contains(SERVICE_NAME, "X-Ark-Agent", "spec.overrides"));
    assertThat(broker.as(ADMIN).listAll("").stream().filter(q -> "Ship it?".equals(q.getString("content")))).hasSize(4);
  }
}
