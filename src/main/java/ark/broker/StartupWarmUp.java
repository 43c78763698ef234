package ark.broker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import io.vertx.core.Context;
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
import org.slf4j.Marker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Once the broker has started (its ports open, answering only probes until this is done), runs its request path
 * for {@code warmUp.seconds} in a throwaway broker of its own: loopback ports, a temporary directory, no authentication, no channels, no Kubernetes, no Kafka, so nothing
 * it does leaves the process. The JIT compiler compiles what serves REST creates and answers then, instead of
 * while the first clients wait: a fresh JVM otherwise serves its first ten seconds at a third of its later rate.
 * It cannot fail the start: whatever goes wrong is logged and the broker serves as it would have.
 */
final class StartupWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(StartupWarmUp.class);
  private static final int LOOPS = 16;

  private StartupWarmUp() {
  }

  /**
   * Blocks for about {@code warmUp.seconds} of {@code config} and returns the create+answer pairs it served; returns
   * 0 at once when that is 0.
   */
  static long run(JsonObject config) {
    int seconds = seconds(config);
    if (seconds == 0) {
      return 0;
    }
    LOG.info("Warming up the request path for {} s (warmUp.seconds): the ports are open, and /readyz and requests "
        + "answer 503 until it is done", seconds);
    long started = System.nanoTime();
    // On a thread of its own, so that the lines it logs while starting its broker are told from the real broker's.
    ExecutorService driver = Executors.newSingleThreadExecutor(work -> new Thread(work, "ark-broker-warm-up"));
    try {
      long pairs = driver.submit(() -> inThrowawayBroker(config, TimeUnit.SECONDS.toNanos(seconds))).get();
      // The throwaway broker is garbage now, and the heap grew to its burst of load.
      String heap = HeapGiveBack.run();
      LOG.info("Warmed up the request path with {} create+answer pairs in {} ms; heap {}", pairs,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), heap);
      return pairs;
    } catch (ExecutionException failed) {
      LOG.warn("Warming up the request path failed ({}); serving without", failed.getCause().toString());
      return 0;
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return 0;
    } finally {
      driver.shutdown();
    }
  }

  /**
   * The seconds of {@code warmUp.seconds}: 0 (off) to 60; beyond a minute the compiler has long caught up, and a
   * start should not wait longer for it.
   *
   * @throws IllegalArgumentException for any other value
   */
  static int seconds(JsonObject config) {
    int seconds = config.getJsonObject("warmUp").getInteger("seconds");
    if (seconds < 0 || seconds > 60) {
      throw new IllegalArgumentException("warmUp.seconds must be 0 (off) to 60, not " + seconds);
    }
    return seconds;
  }

  private static long inThrowawayBroker(JsonObject config, long nanos) throws Exception {
    Path dataDir = Files.createTempDirectory("ark-broker-warm-up");
    Vertx scratch = NativeTransport.vertx(); // the real broker's transport, so its code is what gets compiled
    ThrowawayLines silenced = ThrowawayLines.install(scratch);
    try {
      Main.RunningBroker broker = Main.start(scratch, throwaway(config, dataDir)).await(30, TimeUnit.SECONDS);
      return drive(scratch, broker.httpPort(), nanos);
    } finally {
      scratch.close().await();
      silenced.remove();
      deleteQuietly(dataDir);
    }
  }

  /**
   * Drops the throwaway broker's log lines, which would read as the real one's (started, ready, a question created):
   * those logged on its Vert.x threads and on the thread that starts it. The real broker, serving probes meanwhile
   * in the same process, logs as ever.
   */
  private static final class ThrowawayLines extends TurboFilter {
    private final Vertx scratch;
    private final Thread driver = Thread.currentThread();

    private ThrowawayLines(Vertx scratch) {
      this.scratch = scratch;
    }

    /** Installed from the thread that starts the throwaway broker. */
    static ThrowawayLines install(Vertx scratch) {
      ThrowawayLines filter = new ThrowawayLines(scratch);
      filter.start();
      context().addTurboFilter(filter);
      return filter;
    }

    void remove() {
      context().getTurboFilterList().remove(this);
    }

    @Override
    public FilterReply decide(Marker marker, ch.qos.logback.classic.Logger logger, Level level, String format,
                              Object[] params, Throwable t) {
      if (Thread.currentThread() == driver) {
        return FilterReply.DENY;
      }
      Context context = Vertx.currentContext();
      return context != null && context.owner() == scratch ? FilterReply.DENY : FilterReply.NEUTRAL;
    }

    private static LoggerContext context() {
      return (LoggerContext) LoggerFactory.getILoggerFactory();
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
