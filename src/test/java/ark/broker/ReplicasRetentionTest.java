package ark.broker;

import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestKafka;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retention on two replicas sharing Kafka: the worker's removal is a record both apply, so the same questions are
 * gone on both (410, then 404 once the audit trail lets them go: a tombstone on the compacted topic), watches and MCP
 * on either replica say so, and a replica started afterwards from the topic brings nothing back.
 */
class ReplicasRetentionTest {
  @TempDir
  Path dataDir;

  @Test
  void bothReplicasRemoveTheSameQuestionsAndAReplicaStartedLaterResurrectsNothing() throws Exception {
    JsonObject cluster = TestKafka.shared().cluster().mergeIn(new JsonObject()
        .put("retention", new JsonObject().put("settledQuestionsSeconds", 1).put("auditSeconds", 6)), true);
    String recipient = someone();
    String pendingId;
    String settledId;
    try (TestBroker a = TestBroker.start(dataDir.resolve("a"), cluster);
         TestBroker b = TestBroker.start(dataDir.resolve("b"), cluster)) {
      McpTestClient onB = new McpTestClient(b.mcp).initialize();
      pendingId = a.ask("{'recipient':'" + recipient + "','content':'Still open?'}").getString("id");
      settledId = a.ask("{'recipient':'" + recipient + "','content':'Ship it?'}").getString("id");
      try (SseStream watchOnB = b.watch("recipient=" + recipient, null)) {
        assertThat(b.patch("/questions/" + settledId, "{\"response\":\"yes\"}").status()).isEqualTo(200);
        assertThat(watchOnB.nextOfType("question_removed").json().getString("id")).isEqualTo(settledId);
      }

      for (TestBroker replica : new TestBroker[] {a, b}) {
        TestBroker.Response gone = Eventually.until("removed on " + replica.base,
            () -> replica.get("/questions/" + settledId), response -> response.status() == 410);
        assertThat(gone.error().getString("message")).contains("question " + settledId + " was removed");
        assertThat(replica.get("/questions/" + pendingId).status()).isEqualTo(200);
        assertThat(replica.listAll("recipient=" + recipient)).extracting(q -> q.getString("id"))
            .containsExactly(pendingId);
      }
      JsonObject error = onB.call("tasks/get", new JsonObject().put("taskId", settledId)).json().getJsonObject("error");
      assertThat(error.getString("message")).contains("Task not found: " + settledId).contains("was removed");

      for (TestBroker replica : new TestBroker[] {a, b}) {
        TestBroker.Response forgotten = Eventually.until("the audit trail lets it go on " + replica.base,
            () -> replica.get("/questions/" + settledId), response -> response.status() == 404);
        assertThat(forgotten.error().getString("message")).contains("settled questions are removed 1 second after");
      }
    }

    try (TestBroker later = TestBroker.start(dataDir.resolve("later"), cluster)) {
      assertThat(later.get("/questions/" + settledId).status()).as("nothing comes back from the topic").isEqualTo(404);
      assertThat(later.listAll("recipient=" + recipient)).extracting(q -> q.getString("id")).containsExactly(pendingId);
    }
  }
}
