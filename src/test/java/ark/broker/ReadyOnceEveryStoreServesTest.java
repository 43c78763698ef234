package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.QuestionLogFile;
import ark.broker.testing.TestBroker;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A broker whose questions replay at once but whose streams log takes a while: /readyz says 503 until every store
 * serves, so the first 200 is followed by served requests to each of Ark's stores, never by 503 "No handlers".
 */
class ReadyOnceEveryStoreServesTest {
  /** Enough that replaying them takes seconds after the ports open, even on a busy machine. */
  private static final int CHUNKS = 300_000;
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(500)).build();

  @TempDir
  Path dataDir;

  @Test
  void theFirstReadyIsFollowedByEveryStoreServing() throws Exception {
    // A broker started before in this JVM, so the one under test loads no classes and opens its ports at once.
    TestBroker.start(dataDir.resolve("earlier")).close();
    long now = System.currentTimeMillis();
    QuestionLogFile.writeRecords(dataDir.resolve("replayed").resolve(Main.STREAMS_LOG), CHUNKS, i -> "\"q-" + i % 100 + "\" {\"type\":\"chunk\","
        + "\"query\":\"q-" + i % 100 + "\",\"at\":" + now + ",\"chunk\":{\"content\":\"token " + i + "\"}}");
    int port = BrokerProcess.freePort();
    URI base = URI.create("http://127.0.0.1:" + port);
    // An event loop for each verticle, so the ports answer while a store replays on its own, as on a large machine.
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(16));
    try {
      JsonObject config = ConfigLoader.load(vertx, Map.of()).await(10, TimeUnit.SECONDS).mergeIn(new JsonObject()
          .put("http", new JsonObject().put("port", port).put("instances", 1))
          .put("mcp", new JsonObject().put("port", 0))
          .put("store", new JsonObject().put("dataDir", dataDir.resolve("replayed").toString()))
          .put("kube", new JsonObject().put("enabled", "false")), true);
      Future<Main.RunningBroker> starting = Main.start(vertx, config);

      boolean sawNotReady = false;
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      int ready = 0;
      while (ready != 200 && System.nanoTime() < deadline) {
        try {
          ready = status(base, "/readyz");
          sawNotReady |= ready == 503;
        } catch (java.io.IOException notListeningYet) {
          // the port opens a moment after the start begins
        }
      }
      assertThat(ready).isEqualTo(200);
      for (String path : new String[] {"/sessions", "/messages", "/events", "/traces", "/stream"}) {
        assertThat(status(base, path)).as("GET %s right after the first ready", path).isEqualTo(200);
      }
      assertThat(sawNotReady).as("readyz said 503 while the streams replayed").isTrue();
      starting.await(60, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(20, TimeUnit.SECONDS);
    }
  }

  private static int status(URI base, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(base.resolve(path)).build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
