package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestKafka;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replica that is the worker is killed (SIGKILL) while questions and an MCP task are pending:
 * the other replicas serve them, the worker role moves (a question still expires on time), and a
 * replica started afterwards rebuilds the whole view from the topic.
 */
class ReplicaFailoverIT {
  @TempDir
  Path dataDir;

  @Test
  void whenTheWorkerReplicaIsKilledTheOthersTakeOverEverything() throws Exception {
    JsonObject cluster = TestKafka.shared().cluster();
    Map<String, String> environment = new HashMap<>(BrokerProcess.environmentOf(cluster));
    environment.put("LOG_LEVEL", "WARN");
    try (BrokerProcess killed = BrokerProcess.start(dataDir.resolve("killed"), BrokerProcess.freePort(), environment)) {
      Eventually.until("the first replica is the worker", () -> isWorker(killed.base), worker -> worker);
      try (TestBroker b = TestBroker.start(dataDir.resolve("b"), cluster);
           TestBroker c = TestBroker.start(dataDir.resolve("c"), cluster)) {
        HttpClient http = HttpClient.newHttpClient();
        McpTestClient agent = new McpTestClient(killed.mcp).initialize();
        String taskId = agent.call("tools/call", new JsonObject().put("name", "ask_question").put("task", new JsonObject())
                .put("arguments", new JsonObject().put("recipient", "ark://users/ops").put("content", "Fail over?")))
            .result().getJsonObject("task").getString("taskId");
        String pending = create(http, killed.base, "{\"recipient\":\"ark://users/ops\",\"content\":\"Still there?\"}");
        String expiring = create(http, killed.base,
            "{\"recipient\":\"ark://users/ops\",\"content\":\"Too late?\",\"ttlSeconds\":4}");

        killed.kill();

        assertThat(b.get("/questions/" + pending).json().getString("status")).isEqualTo("pending");
        assertThat(c.patch("/questions/" + taskId, "{\"response\":\"yes\"}").status()).isEqualTo(200);
        McpTestClient sameSessionOnB = new McpTestClient(b.mcp);
        sameSessionOnB.sessionId = agent.sessionId;
        JsonObject result = sameSessionOnB.call("tasks/result", new JsonObject().put("taskId", taskId)).result();
        assertThat(result.getJsonObject("structuredContent").getString("response")).isEqualTo("yes");

        Eventually.until("another replica becomes the worker", () -> isWorker(b.base) || isWorker(c.base), worker -> worker);
        Eventually.until("the expiring question expires", () -> c.get("/questions/" + expiring).json().getString("status"),
            "expired"::equals);

        try (TestBroker late = TestBroker.start(dataDir.resolve("late"), cluster)) {
          List<JsonObject> onB = b.listAll("");
          assertThat(onB).extracting(question -> question.getString("id")).contains(taskId, pending, expiring);
          assertThat(late.listAll("")).isEqualTo(onB);
        }
      }
    }
  }

  private static boolean isWorker(URI base) throws Exception {
    String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(base.resolve("/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    return metrics.lines().anyMatch(line -> line.startsWith("ark_broker_worker 1"));
  }

  private static String create(HttpClient http, URI base, String json) throws Exception {
    HttpResponse<String> created = http.send(HttpRequest.newBuilder(base.resolve("/questions"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    return new JsonObject(created.body()).getString("id");
  }
}
