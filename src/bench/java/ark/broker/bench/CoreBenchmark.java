package ark.broker.bench;

import ark.broker.ConfigLoader;
import ark.broker.Main;
import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.Messages;
import ark.broker.bus.QuestionStore;
import ark.broker.question.NewQuestion;
import ark.broker.question.Reply;
import ark.broker.testing.BrokerProcess;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The core broker's figures, on this machine, fsync on, load generator in this JVM and the broker in
 * its own process ({@code java -jar}): creates and answers per second at 32 concurrent clients, how
 * fast 1,000 SSE watchers see a change, and how long a restart over 1,000,000 events takes.
 * Run with {@code mvn -Pbench -DskipTests verify}; {@code -Dbench.seconds=10 -Dbench.restartEvents=1000000}.
 */
public final class CoreBenchmark {
  private static final int CLIENTS = 32;
  private static final int WATCHERS = 1000;
  private static final int EVENTS_FOR_RESTART = Integer.getInteger("bench.restartEvents", 1_000_000);
  private static final int SECONDS = Integer.getInteger("bench.seconds", 10);
  private static final String IN_JVM = "load generator in the benchmark's JVM, sharing the cores with the broker";

  public static void main(String[] args) throws Exception {
    System.setProperty("LOG_LEVEL", "WARN");
    Vertx vertx = Vertx.vertx();
    try {
      Path work = Files.createTempDirectory("ark-bench");
      int port = BrokerProcess.freePort();
      try (BrokerProcess broker = BrokerProcess.start(work.resolve("load"), port, Map.of("LOG_LEVEL", "WARN"))) {
        HttpClient http = vertx.createHttpClient(new HttpClientOptions().setDefaultPort(port).setDefaultHost("127.0.0.1"),
            new PoolOptions().setHttp1MaxSize(CLIENTS + WATCHERS + 8));
        ConcurrentLinkedQueue<String> created = new ConcurrentLinkedQueue<>();
        run(List.of(http), "warm-up creates", 3, created, false);
        created.clear();
        Result creates = run(List.of(http), "creates", SECONDS, created, false);
        Result answers = run(List.of(http), "answers", SECONDS, created, true);
        System.out.printf("%n%-9s %8.0f req/s   %s   (%d errors)%n", "creates", creates.perSecond, creates.latency.summary(), creates.errors);
        System.out.printf("%-9s %8.0f req/s   %s   (%d errors)%n", "answers", answers.perSecond, answers.latency.summary(), answers.errors);
        ResultLine.print("REST creates, 32 clients", String.format("%.0f/s, %s", creates.perSecond, creates.latency.summary()),
            "≥ 5,000/s, p99 < 20 ms", IN_JVM);
        ResultLine.print("REST answers, 32 clients", String.format("%.0f/s, %s", answers.perSecond, answers.latency.summary()),
            "≥ 5,000/s, p99 < 20 ms", IN_JVM);
        watchers(http);
      }
      restart(work.resolve("restart"), true);
      restart(work.resolve("restart-raw"), false);
    } finally {
      vertx.close();
    }
  }

  record Result(double perSecond, Percentiles latency, long errors) {
  }

  /**
   * {@link #CLIENTS} loops, each sending its next request when the previous one is answered, spread
   * evenly over {@code replicas}; answers take ids from {@code ids}, creates add theirs.
   */
  static Result run(List<HttpClient> replicas, String name, int seconds, ConcurrentLinkedQueue<String> ids, boolean answer)
      throws Exception {
    return run(replicas, name, seconds, ids, answer, null);
  }

  /** The same, each request carrying {@code Authorization: Bearer <bearer>} (null for none). */
  static Result run(List<HttpClient> replicas, String name, int seconds, ConcurrentLinkedQueue<String> ids, boolean answer,
                    String bearer) throws Exception {
    Percentiles latency = new Percentiles();
    AtomicLong errors = new AtomicLong();
    AtomicInteger done = new AtomicInteger();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    List<Future<Void>> loops = new ArrayList<>();
    long started = System.nanoTime();
    for (int c = 0; c < CLIENTS; c++) {
      Promise<Void> finished = Promise.promise();
      loop(replicas.get(c % replicas.size()), answer, bearer, ids, end, latency, errors, done, finished);
      loops.add(finished.future());
    }
    Future.all(loops).await(seconds + 30L, TimeUnit.SECONDS);
    double elapsed = (System.nanoTime() - started) / 1e9;
    System.out.printf("%s: %d requests in %.1f s%n", name, done.get(), elapsed);
    return new Result(done.get() / elapsed, latency, errors.get());
  }

  private static void loop(HttpClient http, boolean answer, String bearer, ConcurrentLinkedQueue<String> ids, long end,
                           Percentiles latency, AtomicLong errors, AtomicInteger done, Promise<Void> finished) {
    String id = answer ? ids.poll() : null;
    if (System.nanoTime() > end || (answer && id == null)) {
      finished.complete();
      return;
    }
    long sent = System.nanoTime();
    request(http, answer, id, bearer, done.get())
        .onComplete(result -> {
          latency.add(System.nanoTime() - sent);
          done.incrementAndGet();
          if (result.failed()) {
            errors.incrementAndGet();
          } else if (!answer) {
            ids.add(result.result());
          }
          loop(http, answer, bearer, ids, end, latency, errors, done, finished);
        });
  }

  /**
   * One REST request: a create (the {@code n}th) or the answer to question {@code id}. Succeeds with
   * the created question's id (or the answered one's), fails on any status but 2xx.
   */
  static Future<String> request(HttpClient http, boolean answer, String id, String bearer, int n) {
    RequestOptions options = new RequestOptions()
        .setMethod(answer ? HttpMethod.PATCH : HttpMethod.POST)
        .setURI(answer ? "/questions/" + id : "/questions")
        .putHeader("Content-Type", "application/json");
    if (bearer != null) {
      options.putHeader("Authorization", "Bearer " + bearer);
    }
    String body = answer ? "{\"response\":\"yes\"}"
        : "{\"recipient\":\"ark://users/john\",\"sender\":\"ark://agents/bench\",\"content\":\"Proceed with step "
        + n + "?\",\"options\":[\"yes\",\"no\"]}";
    return http.request(options)
        .compose(request -> request.send(Buffer.buffer(body)))
        .compose(response -> response.body().map(b -> {
          if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException((answer ? "answer" : "create") + " answered " + response.statusCode());
          }
          return answer ? id : new JsonObject(b).getString("id");
        }));
  }

  /** 1,000 watch streams; 200 creates a little apart; how long each takes to reach every watcher. */
  private static void watchers(HttpClient http) throws Exception {
    Map<String, Long> sentAt = new java.util.concurrent.ConcurrentHashMap<>();
    Percentiles delivery = new Percentiles();
    AtomicInteger open = new AtomicInteger();
    for (int w = 0; w < WATCHERS; w++) {
      http.request(HttpMethod.GET, "/questions?watch=true&recipient=ark://users/watched")
          .compose(request -> request.send())
          .onSuccess(response -> {
            open.incrementAndGet();
            StringBuilder pending = new StringBuilder();
            response.handler(chunk -> {
              long now = System.nanoTime();
              pending.append(chunk.toString());
              int end;
              while ((end = pending.indexOf("\n\n")) >= 0) {
                String frame = pending.substring(0, end);
                pending.delete(0, end + 2);
                int at = frame.indexOf("\"content\":\"watch ");
                if (at >= 0) {
                  int start = at + "\"content\":\"".length();
                  Long sent = sentAt.get(frame.substring(start, frame.indexOf('"', start)));
                  if (sent != null) {
                    delivery.add(now - sent);
                  }
                }
              }
            });
          });
    }
    while (open.get() < WATCHERS) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    int changes = 200;
    for (int i = 0; i < changes; i++) {
      String key = "watch " + i;
      sentAt.put(key, System.nanoTime());
      http.request(new RequestOptions().setMethod(HttpMethod.POST).setURI("/questions").putHeader("Content-Type", "application/json"))
          .compose(request -> request.send("{\"recipient\":\"ark://users/watched\",\"content\":\"" + key + "\"}"));
      TimeUnit.MILLISECONDS.sleep(20);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (delivery.count() < changes * WATCHERS && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    System.out.printf("%d SSE watchers: %d of %d deliveries, create-to-watcher %s%n", WATCHERS, delivery.count(),
        changes * WATCHERS, delivery.summary());
    ResultLine.print(WATCHERS + " SSE watchers, create to every watcher", delivery.count() + " of " + changes * WATCHERS
        + " deliveries, " + delivery.summary(), "p99 < 100 ms", IN_JVM);
  }

  /** Writes {@link #EVENTS_FOR_RESTART} events (creates, then answers) through the store, then times a restart. */
  private static void restart(Path dataDir, boolean snapshots) throws Exception {
    Vertx writer = Vertx.vertx();
    JsonObject config = ConfigLoader.load(writer, Map.of()).await(10, TimeUnit.SECONDS).mergeIn(new JsonObject()
        .put("http", new JsonObject().put("port", 0).put("instances", 1)).put("mcp", new JsonObject().put("port", 0))
        .put("store", new JsonObject().put("dataDir", dataDir.toString())
            .put("snapshotEveryEvents", snapshots ? 100_000 : EVENTS_FOR_RESTART * 2)), true);
    Main.start(writer, config).await(30, TimeUnit.SECONDS);
    long started = System.nanoTime();
    int questions = EVENTS_FOR_RESTART / 2;
    List<String> ids = new ArrayList<>(questions);
    QuestionStore store = Addresses.QUESTION_STORE.client(writer.eventBus(), 60_000);
    writeMany(writer, questions, i -> store.create(Actor.BROKER, new NewQuestion("ark://agents/bench", "ark://users/john",
        null, "Restart question " + i + "?", "some context for question " + i, List.of("yes", "no"), null, true, null, null, false, null, null,
        null, null, null, null, null)), reply -> ids.add(((Messages.Created) reply).question().id()));
    writeMany(writer, questions, i -> store.answer(Actor.BROKER, ids.get(i), new Reply.Text("yes"), "ark://users/john"),
        reply -> { });
    System.out.printf("%nwrote %d events through the store in %.1f s (%s)%n", EVENTS_FOR_RESTART,
        (System.nanoTime() - started) / 1e9, snapshots ? "snapshots every 100,000 events" : "no snapshot");
    writer.close().await(30, TimeUnit.SECONDS);

    long begin = System.nanoTime();
    try (BrokerProcess broker = BrokerProcess.start(dataDir, BrokerProcess.freePort(), Map.of("LOG_LEVEL", "INFO"))) {
      double seconds = (System.nanoTime() - begin) / 1e9;
      String replayed = broker.output().lines().filter(l -> l.contains("questions replayed")).findFirst().orElse("");
      System.out.printf("restart over %d events (%s): ready after %.2f s (process start to /readyz 200)%n  %s%n",
          EVENTS_FOR_RESTART, snapshots ? "with snapshot" : "no snapshot", seconds, replayed);
      ResultLine.print(String.format("Restart over %,d events, %s", EVENTS_FOR_RESTART, snapshots ? "default snapshots" : "no snapshot"),
          String.format("ready in %.2f s", seconds), "< 10 s", "decoding records on both cores, the garbage collector (-Xmx1g) and the JIT compiler; see docs/benchmarks.md");
    }
  }

  private static void writeMany(Vertx vertx, int count, java.util.function.IntFunction<Future<?>> write,
                                java.util.function.Consumer<Object> onReply) throws Exception {
    AtomicInteger next = new AtomicInteger();
    List<Future<Void>> lanes = new ArrayList<>();
    Object lock = new Object();
    for (int lane = 0; lane < 256; lane++) {
      Promise<Void> finished = Promise.promise();
      lanes.add(finished.future());
      vertx.runOnContext(v -> sendNext(count, write, onReply, next, finished, lock));
    }
    Future.all(lanes).await(600, TimeUnit.SECONDS);
  }

  private static void sendNext(int count, java.util.function.IntFunction<Future<?>> write,
                               java.util.function.Consumer<Object> onReply, AtomicInteger next, Promise<Void> finished,
                               Object lock) {
    int i = next.getAndIncrement();
    if (i >= count) {
      finished.tryComplete();
      return;
    }
    write.apply(i).onComplete(reply -> {
      if (reply.succeeded()) {
        synchronized (lock) {
          onReply.accept(reply.result());
        }
      }
      sendNext(count, write, onReply, next, finished, lock);
    });
  }

  private CoreBenchmark() {
  }
}
