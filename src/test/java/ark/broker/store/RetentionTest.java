package ark.broker.store;

import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Settled questions leave the broker after their retention, pending ones never: reads say why they are gone, watches
 * and MCP tasks say so, a restart brings nothing back, and once the audit trail lets them go they leave the disk too.
 */
class RetentionTest {
  @TempDir
  Path dataDir;

  /** Settled questions go a second after their last change; the audit trail keeps them an hour. */
  private static final JsonObject KEPT_BY_THE_AUDIT_TRAIL = new JsonObject()
      .put("retention", new JsonObject().put("settledQuestionsSeconds", 1).put("auditSeconds", 3600));
  /** Settled questions go a second after their last change, the audit trail with them. */
  private static final JsonObject FORGOTTEN_AT_ONCE = new JsonObject()
      .put("retention", new JsonObject().put("settledQuestionsSeconds", 1).put("auditSeconds", 0))
      .put("store", new JsonObject().put("snapshotEveryEvents", 10));

  @Test
  void aSettledQuestionIsGoneAfterItsRetentionAndAPendingOneStaysAcrossARestart() throws Exception {
    String recipient = someone();
    String pendingId;
    String settledId;
    try (TestBroker broker = TestBroker.start(dataDir, KEPT_BY_THE_AUDIT_TRAIL)) {
      pendingId = broker.ask("{'recipient':'" + recipient + "','content':'Still open?'}").getString("id");
      settledId = broker.ask("{'recipient':'" + recipient + "','content':'Ship it?','idempotencyKey':'ship-1'}")
          .getString("id");
      try (SseStream watch = broker.watch("recipient=" + recipient, null)) {
        assertThat(broker.patch("/questions/" + settledId, "{\"response\":\"yes\"}").status()).isEqualTo(200);
        assertThat(watch.nextOfType("question_answered").json().getString("id")).isEqualTo(settledId);

        SseStream.SseEvent removed = watch.nextOfType("question_removed");
        assertThat(removed.json().getString("id")).as("the watch says which question left").isEqualTo(settledId);
      }

      TestBroker.Response gone = broker.get("/questions/" + settledId);
      assertThat(gone.status()).isEqualTo(410);
      assertThat(gone.error().getString("message")).contains("question " + settledId + " was removed")
          .contains("kept 1 second after their last change").contains("retention.settledQuestionsSeconds");
      assertThat(broker.patch("/questions/" + settledId, "{\"response\":\"again\"}").status()).isEqualTo(410);
      TestBroker.Response audited = broker.get("/questions/" + settledId + "/events");
      assertThat(audited.status()).as("an admin reads what the audit trail keeps").isEqualTo(200);
      assertThat(audited.json().getJsonArray("items").stream().map(item -> ((JsonObject) item).getString("type")))
          .containsExactly("question_created", "question_answered");
      assertThat(broker.listAll("recipient=" + recipient)).extracting(q -> q.getString("id")).containsExactly(pendingId);
      TestBroker.Response askedAgain = broker.post("/questions", ("{'recipient':'" + recipient
          + "','content':'Ship it?','idempotencyKey':'ship-1'}").replace('\'', '"'));
      assertThat(askedAgain.status()).as("a key that named a removed question is not reused").isEqualTo(409);
      assertThat(askedAgain.error().getString("message")).contains("use a new one");
    }

    try (TestBroker restarted = TestBroker.start(dataDir, KEPT_BY_THE_AUDIT_TRAIL)) {
      assertThat(restarted.get("/questions/" + settledId).status()).as("nothing comes back").isEqualTo(410);
      assertThat(restarted.get("/questions/" + pendingId).status()).as("pending questions are never removed")
          .isEqualTo(200);
      assertThat(restarted.listAll("recipient=" + recipient)).extracting(q -> q.getString("id"))
          .containsExactly(pendingId);
    }
  }

  /**
   * An auditor exports what the audit trail keeps before it goes: {@code GET /audit} has the removal among the changes
   * while the broker still holds them, and {@code GET /audit/removed} every removed question it keeps, with its history,
   * after a restart too.
   */
  @Test
  void anAuditorExportsTheRemovalAndTheHistoryBeforeTheAuditTrailLetsThemGo() throws Exception {
    String recipient = someone();
    String settledId;
    try (TestBroker broker = TestBroker.start(dataDir, KEPT_BY_THE_AUDIT_TRAIL)) {
      settledId = broker.ask("{'recipient':'" + recipient + "','content':'Audited?'}").getString("id");
      assertThat(broker.patch("/questions/" + settledId, "{\"response\":\"yes\"}").status()).isEqualTo(200);
      Eventually.until("removed after its retention", () -> broker.get("/questions/" + settledId),
          response -> response.status() == 410);

      TestBroker.Response changes = broker.get("/audit?since=0");
      assertThat(changes.header("Content-Type")).isEqualTo("application/x-ndjson");
      assertThat(ndjson(changes).stream().filter(line -> settledId.equals(line.getString("question")))
          .map(line -> line.getString("type"))).containsExactly("question_created", "question_answered", "question_removed");
      assertExported(broker, settledId);
    }
    try (TestBroker restarted = TestBroker.start(dataDir, KEPT_BY_THE_AUDIT_TRAIL)) {
      assertExported(restarted, settledId);
    }
  }

  /** {@code GET /audit/removed} has the removed question, answered, with who created and answered it when. */
  private static void assertExported(TestBroker broker, String id) throws Exception {
    TestBroker.Response removed = broker.get("/audit/removed");
    assertThat(removed.status()).isEqualTo(200);
    assertThat(removed.header("Content-Type")).isEqualTo("application/x-ndjson");
    List<JsonObject> lines = ndjson(removed);
    assertThat(lines).extracting(line -> line.getString("id")).containsExactly(id);
    assertThat(lines.get(0).getString("status")).isEqualTo("answered");
    assertThat(lines.get(0).getJsonArray("history").stream().map(item -> ((JsonObject) item).getString("type")))
        .containsExactly("question_created", "question_answered");
    assertThat(lines.get(0).getJsonArray("history").getJsonObject(1).getJsonObject("by").getString("principal"))
        .isNotBlank();
  }

  private static List<JsonObject> ndjson(TestBroker.Response response) {
    return response.body().lines().map(JsonObject::new).toList();
  }

  @Test
  void aTaskHasTheTtlOfItsQuestionAndTasksGetSaysWhenItWasRemoved() throws Exception {
    try (TestBroker broker = TestBroker.start(dataDir, KEPT_BY_THE_AUDIT_TRAIL)) {
      McpTestClient client = new McpTestClient(broker.mcp).initialize();
      String taskId = client.call("tools/call", new JsonObject().put("name", "ask_question").put("task", new JsonObject())
              .put("arguments", new JsonObject().put("recipient", someone()).put("content", "Deploy?")))
          .result().getJsonObject("task").getString("taskId");
      JsonObject pending = client.call("tasks/get", new JsonObject().put("taskId", taskId)).result();
      assertThat(pending.getValue("ttl")).as("a pending question is never removed").isNull();

      broker.patch("/questions/" + taskId, "{\"response\":\"yes\"}");
      JsonObject completed = Eventually.until("the task completes, or is already removed",
          () -> client.call("tasks/get", new JsonObject().put("taskId", taskId)), reply -> reply.json() != null)
          .json();
      if (completed.containsKey("result")) {
        JsonObject task = completed.getJsonObject("result");
        assertThat(task.getString("status")).isEqualTo("completed");
        assertThat(task.getLong("ttl")).as("from its creation until its retention ends")
            .isBetween(1000L, 60_000L);
      }

      JsonObject error = Eventually.until("tasks/get says the task was removed",
          () -> client.call("tasks/get", new JsonObject().put("taskId", taskId)).json(),
          reply -> reply.containsKey("error")).getJsonObject("error");
      assertThat(error.getString("message")).contains("Task not found: " + taskId)
          .contains("was removed").contains("retention.settledQuestionsSeconds");
      JsonObject status = client.call("tools/call", new JsonObject().put("name", "get_question")
          .put("arguments", new JsonObject().put("questionId", taskId))).result();
      assertThat(status.getBoolean("isError")).isTrue();
      assertThat(status.encode()).contains("was removed");
    }
  }

  @Test
  void onceTheAuditTrailLetsAQuestionGoItIsNotFoundAndLeavesTheDisk() throws Exception {
    String settledId;
    try (TestBroker broker = TestBroker.start(dataDir, FORGOTTEN_AT_ONCE)) {
      settledId = broker.ask("{'recipient':'" + someone() + "','content':'Forget me?'}").getString("id");
      broker.patch("/questions/" + settledId, "{\"response\":\"yes\"}");
      Eventually.until("it is not found", () -> broker.get("/questions/" + settledId).status(), status -> status == 404);
      Eventually.until("no log file holds it any more, once later writes brought a snapshot", () -> {
        broker.ask("{'recipient':'" + someone() + "','content':'filler'}");
        return logFilesHolding(settledId);
      }, List::isEmpty);
    }

    try (TestBroker restarted = TestBroker.start(dataDir, FORGOTTEN_AT_ONCE)) {
      TestBroker.Response notFound = restarted.get("/questions/" + settledId);
      assertThat(notFound.status()).isEqualTo(404);
      assertThat(notFound.error().getString("message")).contains("settled questions are removed 1 second after");
    }
  }

  private List<Path> logFilesHolding(String id) throws IOException {
    try (Stream<Path> files = Files.walk(dataDir.resolve("questions"))) {
      return files.filter(Files::isRegularFile).filter(file -> contains(file, id)).toList();
    }
  }

  private static boolean contains(Path file, String text) {
    try {
      return new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.UTF_8).contains(text);
    } catch (IOException e) {
      // A segment deleted by a snapshot while we looked holds nothing any more.
      return false;
    }
  }
}
