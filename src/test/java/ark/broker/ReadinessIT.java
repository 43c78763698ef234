package ark.broker;

import ark.broker.testing.BrokerProcess;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedWriter;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

/** A broker with a long log is alive at once but only ready once the log is replayed. */
class ReadinessIT {
  private static final int QUESTIONS = 300_000;

  @TempDir
  Path dataDir;

  @Test
  void readyOnlyAfterTheLogIsReplayed() throws Exception {
    writeLog(dataDir.resolve("questions"));
    int port = BrokerProcess.freePort();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();
    boolean sawAliveButNotReady = false;
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, port, Map.of())) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      HttpResponse<String> ready = null;
      while (System.nanoTime() < deadline) {
        try {
          int alive = http.send(HttpRequest.newBuilder(broker.base.resolve("/healthz")).build(),
              HttpResponse.BodyHandlers.discarding()).statusCode();
          ready = http.send(HttpRequest.newBuilder(broker.base.resolve("/readyz")).build(), HttpResponse.BodyHandlers.ofString());
          if (ready.statusCode() == 200) {
            break;
          }
          assertThat(ready.statusCode()).isEqualTo(503);
          assertThat(new JsonObject(ready.body()).getJsonObject("error").getString("message")).contains("replaying");
          sawAliveButNotReady |= alive == 200;
        } catch (java.io.IOException notListeningYet) {
          // the HTTP port opens a moment after the process starts
        }
      }
      assertThat(ready).isNotNull();
      assertThat(ready.statusCode()).isEqualTo(200);
      assertThat(new JsonObject(ready.body()).getInteger("questions")).isEqualTo(QUESTIONS);
      assertThat(sawAliveButNotReady).as("healthz answered 200 while readyz still said 503").isTrue();
    }
  }

  /** A segment of {@link #QUESTIONS} creations, written the way the broker writes its log. */
  private static void writeLog(Path dir) throws Exception {
    Files.createDirectories(dir);
    try (BufferedWriter out = Files.newBufferedWriter(dir.resolve(String.format("segment-%020d.log", 1)), StandardCharsets.UTF_8)) {
      for (int i = 1; i <= QUESTIONS; i++) {
        String json = "{\"type\":\"question_created\",\"question\":{\"id\":\"q-" + i + "\",\"recipient\":\"ark://users/john\","
            + "\"channels\":[],\"content\":\"Question " + i + "?\",\"priority\":\"medium\",\"blocking\":true,"
            + "\"status\":\"pending\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"updatedAt\":\"2026-01-01T00:00:00Z\","
            + "\"deliveries\":[]},\"at\":\"2026-01-01T00:00:00Z\",\"writer\":\"test-" + i + "\"}";
        String checked = i + " " + json;
        CRC32C crc = new CRC32C();
        crc.update(checked.getBytes(StandardCharsets.UTF_8));
        out.write(String.format("%08x %s%n", crc.getValue(), checked));
      }
    }
  }
}
