package ark.broker.mcp;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.McpTestClient;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The floods that once exhausted a 512 MiB heap and then kept the broker from starting again: hundreds of
 * {@code initialize} calls with 900 KB of capabilities, and subscriptions to 200 KB URIs of questions that
 * do not exist. Against a broker capped at 256 MiB they are refused, the session log stays small, and
 * the broker starts again with the same heap.
 */
class SessionFloodIT {
  @TempDir
  Path dataDir;

  @Test
  void oversizedSessionsAndSubscriptionsAreRefusedAndTheBrokerRestartsWithTheSameHeap() throws Exception {
    // Ark's stores bounded to fit the 256 MiB heap next to the MCP sessions, else the broker refuses to start.
    Map<String, String> environment = new java.util.HashMap<>(BrokerProcess.fixedMcpPort());
    environment.putAll(BrokerProcess.storesBoundedTo(8 << 20));
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, port, environment, "256m")) {
      broker.awaitReady(Duration.ofSeconds(60));
      JsonObject hugeCapabilities = new JsonObject().put("experimental", new JsonObject().put("padding", "c".repeat(900_000)));
      for (int i = 0; i < 250; i++) {
        McpTestClient.Reply refused = new McpTestClient(broker.mcp).call("initialize", new JsonObject()
            .put("protocolVersion", "2025-11-25").put("capabilities", hugeCapabilities)
            .put("clientInfo", new JsonObject().put("name", "flood").put("version", "1")));
        assertThat(refused.json().getJsonObject("error")).as("initialize %d", i).isNotNull();
        assertThat(refused.json().getJsonObject("error").getInteger("code")).isEqualTo(-32602);
      }

      McpTestClient client = new McpTestClient(broker.mcp).initialize();
      for (int i = 0; i < 40; i++) {
        McpTestClient.Reply refused = client.call("resources/subscribe",
            new JsonObject().put("uri", "ark://questions/q-" + "u".repeat(200_000) + i));
        assertThat(refused.json().getJsonObject("error")).as("subscribe %d", i).isNotNull();
      }
      assertThat(broker.isAlive()).isTrue();
      assertThat(sizeOf(dataDir.resolve("sessions"))).as("bytes in the session log").isLessThan(100_000);
      broker.kill();
    }
    try (BrokerProcess restarted = BrokerProcess.launch(dataDir, port, environment, "256m")) {
      restarted.awaitReady(Duration.ofSeconds(60));
      assertThat(new McpTestClient(restarted.mcp).initialize().sessionId).isNotBlank();
    }
  }

  private static long sizeOf(Path dir) throws Exception {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
    }
  }
}
