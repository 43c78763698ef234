package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.McpTestClient.Reply;
import ark.broker.testing.SseStream;
import ark.broker.testing.SseStream.SseEvent;
import ark.broker.testing.TestBroker;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/** ask_question and the question tools, tasks and resources, as an MCP client sees them. */
class AskQuestionMcpTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(
      new JsonObject().put("mcp", new JsonObject().put("progressIntervalSeconds", 1)), started -> broker = started);

  private static JsonObject ask(String recipient) {
    return new JsonObject().put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", recipient).put("content", "Deploy to production?")
            .put("options", new JsonArray().add("yes").add("no")));
  }

  /** Waits until the question for {@code recipient} exists and returns its id. */
  private static String pendingFor(String recipient) throws Exception {
    for (int attempt = 0; attempt < 200; attempt++) {
      JsonArray items = broker.get("/questions?recipient=" + recipient).json().getJsonArray("items");
      if (!items.isEmpty()) {
        return items.getJsonObject(0).getString("id");
      }
      TimeUnit.MILLISECONDS.sleep(25);
    }
    throw new AssertionError("no question for " + recipient);
  }

  @Test
  void aPlainCallStreamsProgressAndReturnsTheAnswer() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    JsonObject call = client.message("tools/call", ask(recipient).put("_meta", new JsonObject().put("progressToken", "p-1")));

    try (SseStream stream = client.stream(call)) {
      assertThat(stream.contentType).startsWith("text/event-stream");
      SseEvent priming = stream.next();
      assertThat(priming.data()).isEmpty();
      assertThat(priming.id()).isNotBlank();
      JsonObject progress = stream.next().json();
      assertThat(progress.getString("method")).isEqualTo("notifications/progress");
      assertThat(progress.getJsonObject("params").getString("progressToken")).isEqualTo("p-1");
      assertThat(progress.getJsonObject("params").getString("message")).contains("Waiting for an answer from " + recipient);
      double first = progress.getJsonObject("params").getDouble("progress");
      JsonObject later = stream.next().json();
      assertThat(later.getJsonObject("params").getDouble("progress")).isGreaterThan(first);

      String id = pendingFor(recipient);
      broker.patch("/questions/" + id, "{\"response\":\"yes\",\"answeredBy\":\"ark://users/boss\"}");

      JsonObject response = McpTestClient.nextResponse(stream);
      assertThat(response.getLong("id")).isEqualTo(call.getLong("id"));
      JsonObject result = response.getJsonObject("result");
      assertThat(result.getBoolean("isError")).isFalse();
      assertThat(result.getJsonObject("structuredContent")).isEqualTo(new JsonObject()
          .put("questionId", id).put("status", "answered").put("response", "yes").put("answeredBy", "ark://users/boss")
          .put("answeredAt", broker.get("/questions/" + id).json().getString("answeredAt")));
      assertThat(new JsonObject(result.getJsonArray("content").getJsonObject(0).getString("text")))
          .isEqualTo(result.getJsonObject("structuredContent"));
      assertThat(stream.next().event()).isEqualTo("end-of-stream");
    }
  }

  @Test
  void aCancelledOrExpiredQuestionIsAnErrorResultThatSaysSo() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    try (SseStream stream = client.stream(client.message("tools/call", ask(recipient)))) {
      broker.delete("/questions/" + pendingFor(recipient));
      JsonObject result = McpTestClient.nextResponse(stream).getJsonObject("result");

      assertThat(result.getBoolean("isError")).isTrue();
      assertThat(result.getJsonArray("content").getJsonObject(0).getString("text")).contains("was cancelled before anyone answered");
      assertThat(result.getJsonObject("structuredContent").getString("status")).isEqualTo("cancelled");
    }

    JsonObject expiring = ask(someone());
    expiring.getJsonObject("arguments").put("ttlSeconds", 1);
    JsonObject expired = client.call("tools/call", expiring).result();
    assertThat(expired.getBoolean("isError")).isTrue();
    assertThat(expired.getJsonArray("content").getJsonObject(0).getString("text")).contains("expired at");
  }

  @Test
  void badArgumentsAreAToolErrorTheModelCanCorrect() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();

    Reply reply = client.call("tools/call", new JsonObject().put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", "john").put("content", "x")));

    assertThat(reply.result().getBoolean("isError")).isTrue();
    assertThat(reply.result().getJsonArray("content").getJsonObject(0).getString("text"))
        .contains("The question was not asked").contains("recipient must look like ark://");
  }

  @Test
  void aTaskReturnsAtOnceAndTasksResultDeliversTheAnswer() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();

    Reply created = client.call("tools/call", ask(recipient).put("task", new JsonObject().put("ttl", 60000)));
    assertThat(created.contentType()).startsWith("application/json");
    JsonObject task = created.result().getJsonObject("task");
    String taskId = task.getString("taskId");
    assertThat(task.getString("status")).isEqualTo("working");
    assertThat(task.getString("createdAt")).isNotNull();
    assertThat(task.getString("lastUpdatedAt")).isNotNull();
    assertThat(task.containsKey("ttl")).isTrue();
    assertThat(task.getValue("ttl")).isNull();
    assertThat(task.getLong("pollInterval")).isPositive();
    assertThat(broker.get("/questions/" + taskId).json().getString("recipient")).isEqualTo(recipient);

    JsonObject polled = client.call("tasks/get", new JsonObject().put("taskId", taskId)).result();
    assertThat(polled.getString("taskId")).isEqualTo(taskId);
    assertThat(polled.getString("status")).isEqualTo("working");

    try (SseStream result = client.stream(client.message("tasks/result", new JsonObject().put("taskId", taskId)))) {
      assertThat(result.next().data()).isEmpty();
      broker.patch("/questions/" + taskId, "{\"response\":\"no\"}");
      JsonObject payload = McpTestClient.nextResponse(result).getJsonObject("result");

      assertThat(payload.getJsonObject("structuredContent").getString("response")).isEqualTo("no");
      assertThat(payload.getJsonObject("_meta").getJsonObject("io.modelcontextprotocol/related-task").getString("taskId"))
          .isEqualTo(taskId);
    }
    assertThat(client.call("tasks/get", new JsonObject().put("taskId", taskId)).result().getString("status")).isEqualTo("completed");
    Reply again = client.call("tasks/result", new JsonObject().put("taskId", taskId));
    assertThat(again.contentType()).startsWith("application/json");
    assertThat(again.result().getJsonObject("structuredContent").getString("response")).isEqualTo("no");
    Reply cancelDone = client.call("tasks/cancel", new JsonObject().put("taskId", taskId));
    assertThat(cancelDone.error().getInteger("code")).isEqualTo(-32602);
    assertThat(cancelDone.error().getString("message")).contains("already in terminal status 'completed'");
  }

  @Test
  void tasksCanBeCancelledAndListedPerCaller() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String agent = "ark://agents/lister-" + UUID.randomUUID().toString().substring(0, 6);
    JsonObject mine = ask(someone()).put("task", new JsonObject()).put("_meta", new JsonObject().put("ark.mckinsey.com/agent", agent));
    String first = client.call("tools/call", mine).result().getJsonObject("task").getString("taskId");
    String second = client.call("tools/call", ask(someone()).put("task", new JsonObject())
        .put("_meta", new JsonObject().put("ark.mckinsey.com/agent", agent))).result().getJsonObject("task").getString("taskId");
    client.call("tools/call", ask(someone()).put("task", new JsonObject()));

    JsonObject cancelled = client.call("tasks/cancel", new JsonObject().put("taskId", first)).result();
    McpTestClient asAgent = new McpTestClient(broker.mcp).initialize();
    JsonArray listed = asAgent.send(asAgent.post(asAgent.message("tasks/list", null).encode()).header("X-Ark-Agent", agent).build())
        .result().getJsonArray("tasks");

    assertThat(cancelled.getString("status")).isEqualTo("cancelled");
    assertThat(broker.get("/questions/" + first).json().getString("status")).isEqualTo("cancelled");
    assertThat(listed.stream().map(t -> ((JsonObject) t).getString("taskId"))).containsExactly(first, second);
    assertThat(listed.getJsonObject(0).getString("status")).isEqualTo("cancelled");
    JsonObject cancelledResult = client.call("tasks/result", new JsonObject().put("taskId", first)).result();
    assertThat(cancelledResult.getBoolean("isError")).isTrue();
  }

  @Test
  void theSameQueryAndToolCallAskedAgainReturnsTheSameTask() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    JsonObject meta = new JsonObject()
        .put("ark.mckinsey.com/query", new JsonObject().put("namespace", "default").put("name", "q-" + UUID.randomUUID().toString().substring(0, 8)))
        .put("ark.mckinsey.com/tool-call-id", "call_1")
        .put("ark.mckinsey.com/agent", "code-reviewer");

    String first = client.call("tools/call", ask(recipient).put("task", new JsonObject()).put("_meta", meta))
        .result().getJsonObject("task").getString("taskId");
    McpTestClient afterRestartOfTheAgent = new McpTestClient(broker.mcp).initialize();
    String replayed = afterRestartOfTheAgent.call("tools/call", ask(recipient).put("task", new JsonObject()).put("_meta", meta))
        .result().getJsonObject("task").getString("taskId");

    assertThat(replayed).isEqualTo(first);
    JsonObject question = broker.get("/questions/" + first).json();
    assertThat(question.getString("sender")).isEqualTo("ark://agents/code-reviewer");
    assertThat(question.getString("toolCallId")).isEqualTo("call_1");
    assertThat(question.getJsonObject("query").getString("namespace")).isEqualTo("default");
    assertThat(broker.get("/questions?recipient=" + recipient).json().getJsonArray("items")).hasSize(1);
  }

  @Test
  void theQueryAndAgentCanComeFromHeaders() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();

    client.send(client.post(client.message("tools/call", ask(recipient).put("task", new JsonObject())).encode())
        .header("X-Ark-Agent", "ark://agents/planner").header("X-Ark-Query-Namespace", "team-a")
        .header("X-Ark-Query-Name", "plan-1").header("X-Ark-Tool-Call-Id", "call_h").build());

    JsonObject question = broker.get("/questions?recipient=" + recipient).json().getJsonArray("items").getJsonObject(0);
    assertThat(question.getString("sender")).isEqualTo("ark://agents/planner");
    assertThat(question.getJsonObject("query")).isEqualTo(new JsonObject().put("namespace", "team-a").put("name", "plan-1"));
    assertThat(question.getString("toolCallId")).isEqualTo("call_h");
  }

  @Test
  void aCancelledRequestEndsItsStreamWithoutAResponseAndLeavesTheQuestionPending() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    JsonObject call = client.message("tools/call", ask(recipient));
    try (SseStream stream = client.stream(call)) {
      stream.next();
      String id = pendingFor(recipient);

      client.notify("notifications/cancelled", new JsonObject().put("requestId", call.getLong("id")).put("reason", "timeout"));

      SseEvent next = stream.next();
      while (!next.event().equals("end-of-stream")) {
        assertThat(next.json().containsKey("result")).as("no response after a cancel").isFalse();
        next = stream.next();
      }
      assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");
    }
  }

  @Test
  void endingTheSessionDuringCallsEndsEveryCallOfItQuietly() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String first = someone();
    String second = someone();
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    root.addAppender(log);
    JsonObject askFirst = ask(first);
    JsonObject askSecond = ask(second);
    for (JsonObject call : List.of(askFirst, askSecond)) {
      call.getJsonObject("arguments").put("waitSeconds", 300);
    }
    try (SseStream one = client.waitingCall(askFirst); SseStream two = client.waitingCall(askSecond)) {
      pendingFor(first);
      pendingFor(second);

      Reply ended = client.send(client.withSession(HttpRequest.newBuilder(broker.mcp).DELETE()).build());

      assertThat(ended.status()).isEqualTo(200);
      for (SseStream call : List.of(one, two)) {
        for (SseEvent next = call.next(); !next.event().equals("end-of-stream"); next = call.next()) {
          assertThat(next.json().containsKey("result")).as("no result for a call of an ended session").isFalse();
        }
      }
    } finally {
      root.detachAppender(log);
    }
    assertThat(log.list).noneMatch(event -> event.getLevel().isGreaterOrEqual(Level.ERROR));
  }

  @Test
  void aCutStreamResumesWithLastEventIdAndDeliversTheAnswer() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    JsonObject call = client.message("tools/call", ask(recipient).put("_meta", new JsonObject().put("progressToken", "p-cut")));
    String lastEventId = client.cutAfterFirstEvent(call);
    String id = pendingFor(recipient);

    try (SseStream resumed = client.get(lastEventId)) {
      assertThat(resumed.next().data()).as("priming event of the resumed stream").isEmpty();
      JsonObject progress = resumed.next().json();
      assertThat(progress.getJsonObject("params").getString("progressToken")).isEqualTo("p-cut");
      broker.patch("/questions/" + id, "{\"response\":\"yes\"}");

      assertThat(McpTestClient.answerTo(call, McpTestClient.nextResponse(resumed))).isEqualTo("yes");
    }
  }

  @Test
  void theOtherToolsListCheckAndWithdrawQuestions() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String agent = "ark://agents/tools-" + UUID.randomUUID().toString().substring(0, 6);
    JsonObject meta = new JsonObject().put("ark.mckinsey.com/agent", agent);
    String id = client.call("tools/call", ask(someone()).put("task", new JsonObject()).put("_meta", meta))
        .result().getJsonObject("task").getString("taskId");

    JsonObject pending = client.call("tools/call", new JsonObject().put("name", "list_pending_questions")
        .put("arguments", new JsonObject()).put("_meta", meta)).result();
    JsonObject checked = client.call("tools/call", new JsonObject().put("name", "get_question")
        .put("arguments", new JsonObject().put("questionId", id))).result();
    JsonObject withdrawn = client.call("tools/call", new JsonObject().put("name", "cancel_question")
        .put("arguments", new JsonObject().put("questionId", id))).result();
    JsonObject again = client.call("tools/call", new JsonObject().put("name", "cancel_question")
        .put("arguments", new JsonObject().put("questionId", id))).result();

    assertThat(pending.getJsonObject("structuredContent").getJsonArray("questions").stream()
        .map(q -> ((JsonObject) q).getString("id"))).containsExactly(id);
    assertThat(checked.getJsonObject("structuredContent").getString("status")).isEqualTo("pending");
    assertThat(withdrawn.getJsonObject("structuredContent").getString("status")).isEqualTo("cancelled");
    assertThat(again.getBoolean("isError")).isTrue();
    assertThat(again.getJsonArray("content").getJsonObject(0).getString("text")).contains("already cancelled");
  }

  @Test
  void getQuestionCanWaitABoundedTimeForTheAnswer() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    String id = client.call("tools/call", ask(recipient).put("task", new JsonObject())).result().getJsonObject("task").getString("taskId");

    try (SseStream waiting = client.waitingCall(new JsonObject().put("name", "get_question")
        .put("arguments", new JsonObject().put("questionId", id).put("waitSeconds", 30)))) {
      broker.patch("/questions/" + id, "{\"response\":\"no\"}");

      assertThat(McpTestClient.nextResponse(waiting).getJsonObject("result").getJsonObject("structuredContent").getString("response"))
          .isEqualTo("no");
    }
    JsonObject timedOut = client.call("tools/call", new JsonObject().put("name", "get_question")
        .put("arguments", new JsonObject().put("questionId",
            client.call("tools/call", ask(someone()).put("task", new JsonObject())).result().getJsonObject("task").getString("taskId"))
            .put("waitSeconds", 1))).result();
    assertThat(timedOut.getJsonObject("structuredContent").getString("status")).isEqualTo("pending");
  }

  @Test
  void subscribersHearOfChangesToTheQuestionsTheyWatch() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String id = client.call("tools/call", ask(someone()).put("task", new JsonObject())).result().getJsonObject("task").getString("taskId");
    String uri = "ark://questions/" + id;
    assertThat(client.call("resources/subscribe", new JsonObject().put("uri", uri)).result()).isEqualTo(new JsonObject());

    try (SseStream notifications = client.get(null)) {
      notifications.next();
      broker.patch("/questions/" + id, "{\"response\":\"yes\"}");

      List<JsonObject> received = new ArrayList<>();
      received.add(notifications.next().json());
      received.add(notifications.next().json());
      assertThat(received).extracting(m -> m.getString("method"))
          .containsExactlyInAnyOrder("notifications/resources/updated", "notifications/tasks/status");
      JsonObject updated = received.stream().filter(m -> m.getString("method").endsWith("updated")).findFirst().orElseThrow();
      assertThat(updated.getJsonObject("params").getString("uri")).isEqualTo(uri);
    }
    JsonObject read = client.call("resources/read", new JsonObject().put("uri", uri)).result();
    JsonObject content = read.getJsonArray("contents").getJsonObject(0);
    assertThat(content.getString("mimeType")).isEqualTo("application/json");
    assertThat(new JsonObject(content.getString("text")).getString("status")).isEqualTo("answered");
    assertThat(client.call("resources/unsubscribe", new JsonObject().put("uri", uri)).result()).isEqualTo(new JsonObject());
  }

  @Test
  void aListeningSessionHearsOfTheQuestionsItIsSubscribedToNowAndNoOthers() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String dropped = "ark://questions/" + client.call("tools/call", ask(someone()).put("task", new JsonObject())).result()
        .getJsonObject("task").getString("taskId");
    String kept = "ark://questions/" + client.call("tools/call", ask(someone()).put("task", new JsonObject())).result()
        .getJsonObject("task").getString("taskId");

    try (SseStream notifications = client.get(null)) {
      notifications.next();
      client.call("resources/subscribe", new JsonObject().put("uri", dropped));
      client.call("resources/subscribe", new JsonObject().put("uri", kept));
      client.call("resources/unsubscribe", new JsonObject().put("uri", dropped));
      broker.patch("/questions/" + dropped.substring("ark://questions/".length()), "{\"response\":\"yes\"}");
      broker.patch("/questions/" + kept.substring("ark://questions/".length()), "{\"response\":\"yes\"}");

      JsonObject updated = notifications.next().json();
      while (!updated.getString("method").equals("notifications/resources/updated")) {
        updated = notifications.next().json();
      }
      assertThat(updated.getJsonObject("params").getString("uri")).isEqualTo(kept);
    }
  }

  @Test
  void metricsCountMcpRequestsByMethodAndTheCallsWaiting() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    try (SseStream waiting = client.waitingCall(ask(recipient))) {
      pendingFor(recipient);

      client.call("ping", null);
      client.call("no/such/method", null);

      String metrics = broker.get("/metrics").body();

      assertThat(metrics).containsPattern("ark_broker_mcp_requests_in_flight [1-9]");
      assertThat(metrics).contains("ark_broker_mcp_requests_seconds_count{method=\"ping\",outcome=\"ok\"}")
          .contains("ark_broker_mcp_requests_seconds_count{method=\"other\",outcome=\"error\"}")
          .doesNotContain("no/such/method");
    }
  }

  @Test
  void resourcesListThePendingQuestionsAndTheTemplate() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    client.call("tools/call", ask(recipient).put("task", new JsonObject()));

    JsonArray resources = client.call("resources/list", null).result().getJsonArray("resources");
    JsonArray templates = client.call("resources/templates/list", null).result().getJsonArray("resourceTemplates");
    JsonObject pending = new JsonObject(client.call("resources/read", new JsonObject().put("uri", "ark://questions/pending"))
        .result().getJsonArray("contents").getJsonObject(0).getString("text"));

    assertThat(resources.getJsonObject(0).getString("uri")).isEqualTo("ark://questions/pending");
    assertThat(templates.getJsonObject(0).getString("uriTemplate")).isEqualTo("ark://questions/{id}");
    assertThat(pending.getJsonArray("questions").stream().map(q -> ((JsonObject) q).getString("recipient"))).contains(recipient);
  }
}
