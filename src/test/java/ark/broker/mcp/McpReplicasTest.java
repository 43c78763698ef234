package ark.broker.mcp;

import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.McpTestClient.Reply;
import ark.broker.testing.OnThreeReplicas;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;

import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/** One MCP session served by three replicas in turn, as behind a round-robin load balancer. */
class McpReplicasTest extends OnThreeReplicas {
  /** The same session, its requests sent to {@code replica}. */
  private static McpTestClient on(TestBroker replica, McpTestClient session) {
    McpTestClient client = new McpTestClient(replica.mcp);
    client.sessionId = session.sessionId;
    return client;
  }

  private static JsonObject ask(String recipient) {
    return new JsonObject().put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", recipient).put("content", "Roll back the release?"));
  }

  @Test
  void aTaskAskedOnOneReplicaIsAnsweredOnAnotherAndItsResultReadOnAThird() throws Exception {
    McpTestClient onA = new McpTestClient(a.mcp).initialize();

    Reply created = on(b, onA).call("tools/call", ask(someone()).put("task", new JsonObject()));
    String taskId = created.result().getJsonObject("task").getString("taskId");
    assertThat(c.patch("/questions/" + taskId, "{\"response\":\"no\",\"answeredBy\":\"ark://users/ops\"}").status())
        .isEqualTo(200);
    Reply result = onA.call("tasks/result", new JsonObject().put("taskId", taskId));

    assertThat(result.result().getJsonObject("structuredContent").getString("response")).isEqualTo("no");
    assertThat(result.result().getJsonObject("structuredContent").getString("answeredBy")).isEqualTo("ark://users/ops");
    assertThat(on(c, onA).call("tasks/get", new JsonObject().put("taskId", taskId)).result().getString("status"))
        .isEqualTo("completed");
  }

  @Test
  void aPlainCallWaitingOnOneReplicaGetsTheAnswerGivenThroughAnother() throws Exception {
    McpTestClient onA = new McpTestClient(a.mcp).initialize();
    String recipient = someone();

    try (SseStream waiting = onA.waitingCall(ask(recipient))) {
      String id = pendingOn(b, recipient);
      b.patch("/questions/" + id, "{\"response\":\"yes\"}");

      assertThat(McpTestClient.nextResponse(waiting).getJsonObject("result").getJsonObject("structuredContent").getString("response"))
          .isEqualTo("yes");
    }
  }

  @Test
  void aCutStreamResumesOnAnotherReplica() throws Exception {
    McpTestClient onA = new McpTestClient(a.mcp).initialize();
    String recipient = someone();
    JsonObject call = onA.message("tools/call", ask(recipient));
    String lastEventId = onA.cutAfterFirstEvent(call);
    c.patch("/questions/" + pendingOn(c, recipient), "{\"response\":\"go\"}");

    try (SseStream resumed = on(b, onA).get(lastEventId)) {
      assertThat(McpTestClient.answerTo(call, McpTestClient.nextResponse(resumed))).isEqualTo("go");
    }
  }

  @Test
  void aSessionEndedOnOneReplicaIsGoneOnTheOthers() throws Exception {
    McpTestClient onA = new McpTestClient(a.mcp).initialize();
    assertThat(on(c, onA).call("ping", null).status()).isEqualTo(200);

    Reply deleted = onA.send(onA.withSession(HttpRequest.newBuilder(a.mcp).DELETE()).build());

    assertThat(deleted.status()).isEqualTo(200);
    for (TestBroker other : new TestBroker[] {b, c}) {
      Eventually.until("the other replica refuses the ended session", () -> on(other, onA).call("ping", null).status(),
          status -> status == 404);
    }
  }

  /** The id of the question asked for {@code recipient}, as {@code replica} lists it once it has it. */
  private static String pendingOn(TestBroker replica, String recipient) throws Exception {
    return Eventually.until("the question reaches the replica",
        () -> replica.get("/questions?recipient=" + recipient).json().getJsonArray("items"),
        items -> !items.isEmpty()).getJsonObject(0).getString("id");
  }
}
