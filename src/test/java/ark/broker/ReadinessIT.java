package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Eventually;
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

/**
 * A broker with a long log is alive at once but only ready once the log is replayed; stopped while it replays (a
 * rollout that replaces it meanwhile), it stops as asked: status 0, no error, for nothing failed.
 */
class ReadinessIT {
  /** Enough that replaying them takes seconds after the ports open (2.5 s on a quiet machine). */
  private static final int QUESTIONS = 300_000;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  @TempDir
  Path dataDir;

  @Test
  void readyOnlyAfterTheLogIsReplayed() throws Exception {
    QuestionLogFile.writeCreations(dataDir, QUESTIONS, 0);
    boolean sawAliveButNotReady = false;
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, BrokerProcess.freePort(), Map.of())) {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      HttpResponse<String> ready = null;
      while (System.nanoTime() < deadline) {
        try {
          int alive = HTTP.send(HttpRequest.newBuilder(broker.base.resolve("/healthz")).build(),
              HttpResponse.BodyHandlers.discarding()).statusCode();
          ready = readyz(broker);
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

  @Test
  void stoppedWhileReplayingItExitsZeroWithoutAnError() throws Exception {
    QuestionLogFile.writeCreations(dataDir, QUESTIONS, 0);
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, BrokerProcess.freePort(), Map.of())) {
      Eventually.until("readyz answering 503 replaying", () -> readyzStatusAndBody(broker),
          said -> said.startsWith("503") && said.contains("replaying"));

      broker.terminate();

      assertThat(broker.awaitExit(Duration.ofSeconds(60))).as(broker.output()).isZero();
      assertThat(broker.output()).contains("Stopping before the start finished").doesNotContain(" ERROR ")
          .doesNotContain("Exception");
    }
  }

  /** "status body", or "not listening yet" before the HTTP port opens (a moment after the process starts). */
  private static String readyzStatusAndBody(BrokerProcess broker) throws Exception {
    try {
      HttpResponse<String> ready = readyz(broker);
      return ready.statusCode() + " " + ready.body();
    } catch (java.io.IOException notListeningYet) {
      return "not listening yet";
    }
  }

  private static HttpResponse<String> readyz(BrokerProcess broker) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(broker.base.resolve("/readyz")).build(), HttpResponse.BodyHandlers.ofString());
  }
}
