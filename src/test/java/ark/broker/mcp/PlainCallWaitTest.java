package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.SseStream.SseEvent;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;

import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain ask_question returns the question as pending, with its id and how to wait on, once the broker's default
 * wait is over (here one second, so that clients with fixed timeouts never lose the question), unless the call
 * (waitSeconds) or its host (X-Ark-Wait-Seconds) asks for another wait. Tasks wait as long as it takes.
 */
class PlainCallWaitTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject().put("mcp",
      new JsonObject().put("plainCallWaitSeconds", 1).put("progressIntervalSeconds", 1)), started -> broker = started);

  private static JsonObject ask(String recipient) {
    return new JsonObject().put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", recipient).put("content", "Roll back the release?"));
  }

  private static JsonObject asked(String recipient) throws Exception {
    return broker.get("/questions?recipient=" + recipient).json().getJsonArray("items").getJsonObject(0);
  }

  @Test
  void aPlainCallWithoutProgressReturnsThePendingQuestionAndHowToWaitForItsAnswer() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();

    JsonObject result = client.call("tools/call", ask(recipient)).result();

    String id = asked(recipient).getString("id");
    assertThat(result.getBoolean("isError")).isFalse();
    assertThat(result.getJsonObject("structuredContent"))
        .isEqualTo(new JsonObject().put("questionId", id).put("status", "pending"));
    assertThat(result.getJsonArray("content").getJsonObject(0).getString("text"))
        .contains("Nobody has answered question " + id)
        .contains("call get_question with {\"questionId\":\"" + id + "\",\"waitSeconds\":1}");
    assertThat(asked(recipient).getString("status")).as("the question stays open").isEqualTo("pending");
  }

  @Test
  void aHostThatSaysItWaitsUntilAnsweredGetsTheAnswer() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    JsonObject call = client.message("tools/call", ask(recipient).put("_meta", new JsonObject().put("progressToken", "h")));

    try (SseStream stream = SseStream.open(client.http, client.post(call.encode()).header("X-Ark-Wait-Seconds", "0").build())) {
      assertAnsweredAfterTheDefaultWait(stream, recipient, call);
    }
  }

  @Test
  void aCallThatAsksForALongerWaitGetsIt() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    JsonObject toolCall = ask(recipient).put("_meta", new JsonObject().put("progressToken", "w"));
    toolCall.getJsonObject("arguments").put("waitSeconds", 300);
    JsonObject call = client.message("tools/call", toolCall);

    try (SseStream stream = client.stream(call)) {
      assertAnsweredAfterTheDefaultWait(stream, recipient, call);
    }
  }

  /**
   * Reads progress until the default wait is surely over (one progress at once, then one a second), and no result
   * may come meanwhile; then answers, and the call returns the answer.
   */
  private static void assertAnsweredAfterTheDefaultWait(SseStream stream, String recipient, JsonObject call) throws Exception {
    int progress = 0;
    while (progress < 4) {
      SseEvent event = stream.next();
      assertThat(event.event()).isNotEqualTo("end-of-stream");
      if (!event.data().isBlank()) {
        assertThat(event.json().getString("method")).as("only progress while it waits").isEqualTo("notifications/progress");
        progress++;
      }
    }
    broker.patch("/questions/" + asked(recipient).getString("id"), "{\"response\":\"yes\"}");

    assertThat(McpTestClient.answerTo(call, McpTestClient.nextResponse(stream))).isEqualTo("yes");
  }

  @Test
  void aCutStreamResumedWaitsTheDefaultAgainThenReturnsThePendingQuestion() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    JsonObject call = client.message("tools/call", ask(recipient));
    String lastEventId = client.cutAfterFirstEvent(call);

    try (SseStream resumed = client.get(lastEventId)) {
      JsonObject response = McpTestClient.nextResponse(resumed);

      assertThat(response.getLong("id")).isEqualTo(call.getLong("id"));
      assertThat(response.getJsonObject("result").getJsonObject("structuredContent"))
          .isEqualTo(new JsonObject().put("questionId", asked(recipient).getString("id")).put("status", "pending"));
    }
  }

  @Test
  void aTaskWaitsAsLongAsItTakes() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String id = client.call("tools/call", ask(someone()).put("task", new JsonObject())).result()
        .getJsonObject("task").getString("taskId");

    try (SseStream waiting = client.stream(client.message("tasks/result", new JsonObject().put("taskId", id)))) {
      // A plain call asked after the task waited began returns pending once the default wait is over.
      assertThat(client.call("tools/call", ask(someone())).result().getJsonObject("structuredContent").getString("status"))
          .isEqualTo("pending");
      broker.patch("/questions/" + id, "{\"response\":\"later\"}");

      assertThat(McpTestClient.nextResponse(waiting).getJsonObject("result").getJsonObject("structuredContent")
          .getString("response")).as("the task's first and only result").isEqualTo("later");
    }
  }

  @Test
  void aHostWaitThatIsNoNumberIsRefusedAndNothingIsAsked() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    HttpRequest request = client.post(client.message("tools/call", ask(recipient)).encode())
        .header("X-Ark-Wait-Seconds", "soon").build();

    JsonObject result = client.send(request).result();

    assertThat(result.getBoolean("isError")).isTrue();
    assertThat(result.getJsonArray("content").getJsonObject(0).getString("text"))
        .isEqualTo("The question was not asked: X-Ark-Wait-Seconds must be a whole number of seconds (0: until answered), not 'soon'");
    assertThat(broker.get("/questions?recipient=" + recipient).json().getJsonArray("items")).isEmpty();
  }
}
