package ark.broker;

import ch.qos.logback.classic.Level;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Before the broker starts serving, runs its request path for {@code warmUp.seconds} in a throwaway broker of its
 * own: loopback ports, a temporary directory, no authentication, no channels, no Kubernetes, no Kafka, so nothing
 * it does leaves the process. The JIT compiler compiles what serves REST creates and answers then, instead of
 * while the first clients wait: a fresh JVM otherwise serves its first ten seconds at a third of its later rate.
 * It cannot fail the start: whatever goes wrong is logged and the broker starts as it would have.
 */
final class StartupWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(StartupWarmUp.class);
  private static final int LOOPS = 16;
  private static final ch.qos.logback.classic.Logger BROKER_LOGS =
      (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("ark.broker");

  private StartupWarmUp() {
  }

  /**
   * Blocks for about {@code warmUp.seconds} of {@code config} and returns the create+answer pairs it served; returns
   * 0 at once when that is 0. At most 60: beyond a minute the compiler has long caught up, and a start should not
   * wait longer for it.
   */
  static long run(JsonObject config) {
    int seconds = config.getJsonObject("warmUp").getInteger("seconds");
    if (seconds < 0 || seconds > 60) {
      throw new IllegalArgumentException("warmUp.seconds must be 0 (off) to 60, not " + seconds);
    }
    if (seconds == 0) {
      return 0;
    }
    LOG.info("Warming up the request path for {} s (warmUp.seconds) before serving", seconds);
    long started = System.nanoTime();
    try {
      long pairs = quietly(() -> inThrowawayBroker(config, TimeUnit.SECONDS.toNanos(seconds)));
      LOG.info("Warmed up the request path with {} create+answer pairs in {} ms", pairs,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
      return pairs;
    } catch (Exception | LinkageError e) {
      LOG.warn("Warming up the request path failed ({}); starting without", e.toString());
      return 0;
    }
  }

  /** Runs {@code work} with the broker's own log lines off: the throwaway broker's would read as the real one's. */
  private static <T> T quietly(Callable<T> work) throws Exception {
    Level level = BROKER_LOGS.getLevel();
    BROKER_LOGS.setLevel(Level.ERROR);
    try {
      return work.call();
    } finally {
      BROKER_LOGS.setLevel(level);
    }
  }

  private static long inThrowawayBroker(JsonObject config, long nanos) throws Exception {
    Path dataDir = Files.createTempDirectory("ark-broker-warm-up");
    Vertx scratch = Vertx.vertx();
    try {
      Main.RunningBroker broker = Main.start(scratch, throwaway(config, dataDir)).await(30, TimeUnit.SECONDS);
      return drive(scratch, broker.httpPort(), nanos);
    } finally {
      scratch.close().await();
      deleteQuietly(dataDir);
    }
  }

  /**
   * The broker's own configuration, everything that reaches outside the process turned off, and the limits that
   * would refuse the warm-up's own clients (allowed hosts, connections per address) opened for loopback.
   */
  private static JsonObject throwaway(JsonObject config, Path dataDir) {
    JsonObject copy = config.copy();
    for (String port : List.of("http", "mcp")) {
      copy.getJsonObject(port).put("host", "127.0.0.1").put("port", 0)
          .put("allowedHosts", new JsonArray().add("127.0.0.1")).put("maxConnections", 1000).put("maxConnectionsPerClient", 1000);
    }
    copy.getJsonObject("http").put("accessLog", false);
    copy.getJsonObject("store").put("dataDir", dataDir.toString()).put("fsync", false);
    copy.getJsonObject("kafka").put("bootstrapServers", "");
    copy.getJsonObject("kube").put("enabled", "false");
    copy.getJsonObject("auth").put("mode", "none");
    copy.getJsonObject("escalation").put("rules", new JsonArray());
    JsonObject channels = copy.getJsonObject("channels");
    channels.put("routes", new JsonArray());
    for (String channel : List.of("slack", "github", "webhook", "email")) {
      channels.getJsonObject(channel).put("enabled", false);
    }
    return copy;
  }

  /** Create+answer pairs over {@link #LOOPS} loops until {@code nanos} have passed; how many were done. */
  private static long drive(Vertx vertx, int port, long nanos) throws Exception {
    HttpClient http = vertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port),
        new PoolOptions().setHttp1MaxSize(LOOPS));
    long until = System.nanoTime() + nanos;
    AtomicLong done = new AtomicLong();
    List<Future<Void>> loops = new ArrayList<>();
    for (int i = 0; i < LOOPS; i++) {
      Promise<Void> finished = Promise.promise();
      pair(http, until, done, finished);
      loops.add(finished.future());
    }
    Future.all(loops).await(nanos + TimeUnit.SECONDS.toNanos(30), TimeUnit.NANOSECONDS);
    return done.get();
  }

  private static void pair(HttpClient http, long until, AtomicLong done, Promise<Void> finished) {
    if (System.nanoTime() >= until) {
      finished.complete();
      return;
    }
    send(http, HttpMethod.POST, "/questions", "{\"recipient\":\"ark://users/warm-up\",\"sender\":\"ark://agents/warm-up\","
        + "\"content\":\"Warming up: proceed with step " + done.get() + "?\",\"options\":[\"yes\",\"no\"]}")
        .compose(created -> send(http, HttpMethod.PATCH, "/questions/" + created.getString("id"), "{\"response\":\"yes\"}"))
        .onSuccess(answered -> done.incrementAndGet())
        .onComplete(next -> {
          if (next.failed()) {
            finished.fail(next.cause());
          } else {
            pair(http, until, done, finished);
          }
        });
  }

  private static Future<JsonObject> send(HttpClient http, HttpMethod method, String uri, String body) {
    return http.request(new RequestOptions().setMethod(method).setURI(uri).putHeader("Content-Type", "application/json"))
        .compose(request -> request.send(Buffer.buffer(body)))
        .compose(response -> response.body().map(answer -> {
          if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " " + uri + " answered " + response.statusCode() + ": " + answer);
          }
          return answer.toJsonObject();
        }));
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      LOG.warn("Could not delete the warm-up's directory {}: {}", dir, e.getMessage());
    }
  }
}
