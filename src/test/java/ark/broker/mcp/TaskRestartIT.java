package ark.broker.mcp;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * MCP Tasks survive the broker: a task created, the broker killed with SIGKILL and restarted, the
 * question answered; the same session id then gets the answer from tasks/get and tasks/result.
 */
class TaskRestartIT {
  @TempDir
  Path dataDir;

  @Test
  void aTaskAndItsSessionSurviveKill9() throws Exception {
    int httpPort = BrokerProcess.freePort();
    Map<String, String> ports = BrokerProcess.fixedMcpPort();
    McpTestClient client;
    String taskId;
    String waitingEventId;
    JsonObject waitingCall;
    try (BrokerProcess broker = BrokerProcess.start(dataDir, httpPort, ports)) {
      client = new McpTestClient(broker.mcp).initialize();
      taskId = client.call("tools/call", new JsonObject().put("name", "ask_question").put("task", new JsonObject())
              .put("arguments", new JsonObject().put("recipient", "ark://users/john").put("content", "Still there after a crash?")))
          .result().getJsonObject("task").getString("taskId");
      waitingCall = client.message("tasks/result", new JsonObject().put("taskId", taskId));
      try (SseStream waiting = client.stream(waitingCall)) {
        waitingEventId = waiting.next().id();
        broker.kill();
      }
    }

    try (BrokerProcess restarted = BrokerProcess.start(dataDir, httpPort, ports)) {
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> answered = http.send(HttpRequest.newBuilder(restarted.base.resolve("/questions/" + taskId))
          .header("Content-Type", "application/json")
          .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"response\":\"yes, still here\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(answered.statusCode()).isEqualTo(200);

      JsonObject task = client.call("tasks/get", new JsonObject().put("taskId", taskId)).result();
      JsonObject result = client.call("tasks/result", new JsonObject().put("taskId", taskId)).result();
      assertThat(task.getString("status")).isEqualTo("completed");
      assertThat(result.getJsonObject("structuredContent").getString("response")).isEqualTo("yes, still here");

      try (SseStream resumed = client.get(waitingEventId)) {
        JsonObject response = null;
        for (SseStream.SseEvent event = resumed.next(); response == null; event = resumed.next()) {
          if (!event.data().isBlank()) {
            response = event.json();
          }
        }
        assertThat(response.getLong("id")).as("the interrupted tasks/result is answered").isEqualTo(waitingCall.getLong("id"));
        assertThat(response.getJsonObject("result").getJsonObject("structuredContent").getString("response"))
            .isEqualTo("yes, still here");
      }
    }
  }
}
