package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.QuestionLogFile;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A broker with a long log is alive at once but only ready once the log is replayed. */
class ReadinessIT {
  private static final int QUESTIONS = 300_000;

  @TempDir
  Path dataDir;

  @Test
  void readyOnlyAfterTheLogIsReplayed() throws Exception {
    QuestionLogFile.writeCreations(dataDir, QUESTIONS, 0);
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
}
