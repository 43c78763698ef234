package ark.broker.bench;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.SseParser;
import ark.broker.testing.TestKafka;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * First one broker on its embedded log and one replica on Kafka, each loaded by {@link OutsideLoad} generator
 * processes of its own, for the ratio of their throughputs: cold (each alone while its JIT compiles), and warm, in
 * measured rounds that take turns between the two.
 * Then two replicas sharing one Kafka broker, each in its own process ({@code java -jar}), a generator process on
 * each, all on this machine: create+answer pairs per second once warm, then how long an answer given on replica B
 * takes to reach a watcher on replica A, and an agent waiting in MCP tasks/result on replica A. Run with
 * {@code mvn -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.ReplicaBenchmark}
 * ({@code -Dbench.warmupPairs=10000 -Dbench.pairs=20000 -Dbench.settlingRounds=12 -Dbench.measuredRounds=3}).
 */
public final class ReplicaBenchmark {
  private static final int LATENCY_SAMPLES = 500;
  private static final int GENERATORS = 2;
  private static final int CLIENTS_PER_GENERATOR = 16;
  /** Per generator: the cold figure; then rounds of {@link #PAIRS} until the JIT compilers are done. */
  private static final int WARMUP_PAIRS = Integer.getInteger("bench.warmupPairs", 10_000);
  private static final int PAIRS = Integer.getInteger("bench.pairs", 20_000);
  private static final int SETTLING_ROUNDS = Integer.getInteger("bench.settlingRounds", 12);
  private static final int MEASURED_ROUNDS = Integer.getInteger("bench.measuredRounds", 3);

  public static void main(String[] args) throws Exception {
    Vertx vertx = Vertx.vertx();
    Path work = Files.createTempDirectory("ark-bench-replicas");
    TestKafka kafka = TestKafka.shared();
    System.out.println("1 broker on its embedded log:");
    try (Contender embedded = Contender.start("embedded", work.resolve("embedded"), Map.of("LOG_LEVEL", "WARN"), kafka);
         Contender onKafka = embedded.warm().andThen("Kafka", work.resolve("one-replica"), replicaEnvironment(kafka))) {
      System.out.println("1 replica on Kafka:");
      onKafka.warm();
      // The same number of questions stored in both when measured: the one that settled sooner runs more rounds.
      while (embedded.rounds < onKafka.rounds) {
        embedded.extraRound();
      }
      while (onKafka.rounds < embedded.rounds) {
        onKafka.extraRound();
      }
      System.out.printf("measured rounds, taking turns (%d each):%n", MEASURED_ROUNDS);
      for (int round = 1; round <= MEASURED_ROUNDS; round++) {
        embedded.measureRound();
        onKafka.measureRound();
      }
      System.out.printf("%n1 broker, embedded log vs 1 replica on Kafka, %d cores; %d generator processes x %d clients,"
          + " each creating a question and answering it%n", Machine.cores(), GENERATORS, CLIENTS_PER_GENERATOR);
      embedded.print();
      onKafka.print();
      double warmRatio = onKafka.warmPairsPerSecond() / embedded.warmPairsPerSecond();
      double coldRatio = onKafka.coldPairsPerSecond / embedded.coldPairsPerSecond;
      System.out.printf("1 replica on Kafka / embedded log: warm %.2fx, cold %.2fx%n", warmRatio, coldRatio);
      String ratioLimit = String.format("the broker, Kafka and %d generator processes share %d cores; broker + Kafka"
          + " CPU-s per 10,000 pairs: embedded %.2f, Kafka %.2f + %s", GENERATORS, Machine.cores(),
          embedded.cpuPer10k(embedded.brokerCpu), onKafka.cpuPer10k(onKafka.brokerCpu), onKafka.kafkaCpuText());
      ResultLine.print(String.format("1 replica on Kafka / embedded log, create+answer pairs, warm (%d rounds each, taking"
              + " turns)", MEASURED_ROUNDS), String.format("%.0f / %.0f pairs/s = %.2fx", onKafka.warmPairsPerSecond(),
          embedded.warmPairsPerSecond(), warmRatio), "≥ 0.8x", ratioLimit);
      ResultLine.print(String.format("1 replica on Kafka / embedded log, cold (first %,d pairs)", WARMUP_PAIRS * GENERATORS),
          String.format("%.0f / %.0f pairs/s = %.2fx", onKafka.coldPairsPerSecond, embedded.coldPairsPerSecond, coldRatio),
          "–", ratioLimit);
    }
    Map<String, String> environment = replicaEnvironment(kafka);
    int portA = BrokerProcess.freePort();
    int portB = BrokerProcess.freePort();
    try (BrokerProcess a = BrokerProcess.start(work.resolve("a"), portA, environment);
         BrokerProcess b = BrokerProcess.start(work.resolve("b"), portB, environment)) {
      Path samples = work.resolve("two-replicas");
      try (OutsideLoad load = OutsideLoad.start(List.of(portA, portB), GENERATORS, CLIENTS_PER_GENERATOR, WARMUP_PAIRS,
          PAIRS, samples)) {
        load.awaitWarm();
        System.out.println("2 replicas:");
        int rounds = load.settle(withKafka(kafka, a.pid(), b.pid()), SETTLING_ROUNDS);
        OutsideLoad.Measured both = load.measure();
        HttpClient onA = client(vertx, portA);
        HttpClient onB = client(vertx, portB);
        Context loop = vertx.getOrCreateContext();
        Percentiles latency = answerOnBSeenOnA(loop, onA, onB);
        Percentiles taskLatency = answerOnBToTaskResultOnA(loop, client(vertx, a.mcp.getPort()), onB);
        System.out.printf("%n2 replicas, 1 Kafka broker, %d cores, a generator process of %d clients on each, warm (after"
            + " %d rounds of %,d pairs)%n", Machine.cores(), CLIENTS_PER_GENERATOR, rounds, PAIRS);
        System.out.printf("%.0f create+answer pairs/s (create %s; answer %s), %d errors%n", both.pairsPerSecond(),
            both.creates().summary(), both.answers().summary(), both.errors());
        System.out.printf("answer on B -> watcher on A (%d answers, one at a time): %s%n", latency.count(), latency.summary());
        System.out.printf("answer on B -> MCP tasks/result on A (%d answers, one at a time): %s%n", taskLatency.count(),
            taskLatency.summary());
        String limit = String.format("Kafka, the two replicas, %d generator processes and the answering benchmark share %d"
            + " cores", GENERATORS, Machine.cores());
        ResultLine.print("2 replicas: create+answer pairs, warm", String.format("%.0f pairs/s", both.pairsPerSecond()),
            "–", limit);
        ResultLine.print("Answer on replica B to a watcher on A, warm", latency.summary(), "p99 < 20 ms", limit);
        ResultLine.print("Answer on replica B to MCP tasks/result on A, warm", taskLatency.summary(), "p99 < 20 ms", limit);
      }
    } finally {
      vertx.close();
    }
  }

  /** Replicas of a cluster of their own (its own topics), quiet logs. */
  static Map<String, String> replicaEnvironment(TestKafka kafka) {
    Map<String, String> environment = new HashMap<>(BrokerProcess.environmentOf(kafka.cluster()));
    environment.put("LOG_LEVEL", "WARN");
    environment.put("ACCESS_LOG_LEVEL", "WARN");
    return environment;
  }

  /** The brokers' processes and Kafka's, where it is a process here: those whose JIT compilers a warm run waits for. */
  static List<Long> withKafka(TestKafka kafka, Long... brokers) {
    List<Long> processes = new ArrayList<>(List.of(brokers));
    kafka.pid().ifPresent(processes::add);
    return processes;
  }

  /** Kafka's CPU-seconds so far; NaN where it is not a process here (a container). */
  static double kafkaCpuSeconds(TestKafka kafka) {
    return kafka.pid().isPresent() ? Machine.cpuSeconds(kafka.pid().getAsLong()) : Double.NaN;
  }

  /**
   * One broker process started with {@code environment} and its {@link OutsideLoad} processes, kept up so that its
   * measured rounds can take turns with another's (the speed of a shared machine drifts over minutes; taking turns
   * exposes both to the same drift). Counts pairs per second while the JIT compilers of the broker (and of Kafka)
   * are at work and after, and the CPU of every process involved in the measured rounds.
   */
  private static final class Contender implements AutoCloseable {
    private final String label;
    private final BrokerProcess broker;
    private final OutsideLoad load;
    private final TestKafka kafka;
    private double coldPairsPerSecond;
    private int rounds;
    private int pairs;
    private double seconds;
    private long errors;
    private double brokerCpu;
    private double kafkaCpu;
    private double generatorCpu;
    private final Map<String, Double> brokerCpuByRole = new TreeMap<>();

    private Contender(String label, BrokerProcess broker, OutsideLoad load, TestKafka kafka) {
      this.label = label;
      this.broker = broker;
      this.load = load;
      this.kafka = kafka;
    }

    /** Starts the broker and its generators, which begin their cold pairs at once. */
    static Contender start(String label, Path dataDir, Map<String, String> environment, TestKafka kafka) throws Exception {
      int port = BrokerProcess.freePort();
      BrokerProcess broker = BrokerProcess.start(dataDir, port, environment);
      return new Contender(label, broker,
          OutsideLoad.start(List.of(port), GENERATORS, CLIENTS_PER_GENERATOR, WARMUP_PAIRS, PAIRS, dataDir), kafka);
    }

    /** The cold figure, then rounds until the JIT compilers are done (printed as settling rounds). */
    Contender warm() throws Exception {
      coldPairsPerSecond = WARMUP_PAIRS * GENERATORS / load.awaitWarm();
      rounds = load.settle(withKafka(kafka, broker.pid()), SETTLING_ROUNDS);
      return this;
    }

    /** The next contender, started once this one is warm, so that each one's cold figure is its own. */
    Contender andThen(String nextLabel, Path dataDir, Map<String, String> environment) throws Exception {
      return start(nextLabel, dataDir, environment, kafka);
    }

    void extraRound() throws Exception {
      System.out.printf("  %s, one more round for as many stored questions: %.0f pairs/s%n", label,
          load.measure().pairsPerSecond());
      rounds++;
    }

    void measureRound() throws Exception {
      double brokerBefore = Machine.cpuSeconds(broker.pid());
      Map<String, Double> rolesBefore = Machine.cpuSecondsByRole(broker.pid());
      double kafkaBefore = kafkaCpuSeconds(kafka);
      double loadBefore = load.cpuSeconds();
      OutsideLoad.Measured measured = load.measure();
      brokerCpu += Machine.cpuSeconds(broker.pid()) - brokerBefore;
      Machine.cpuSecondsByRole(broker.pid()).forEach((role, seconds) ->
          brokerCpuByRole.merge(role, seconds - rolesBefore.getOrDefault(role, 0.0), Double::sum));
      kafkaCpu += kafkaCpuSeconds(kafka) - kafkaBefore;
      generatorCpu += load.cpuSeconds() - loadBefore;
      pairs += measured.pairs();
      seconds += measured.seconds();
      errors += measured.errors();
      System.out.printf("  %-8s %5.0f pairs/s (create %s; answer %s)%n", label, measured.pairsPerSecond(),
          measured.creates().summary(), measured.answers().summary());
    }

    double warmPairsPerSecond() {
      return pairs / seconds;
    }

    double cpuPer10k(double cpuSeconds) {
      return cpuSeconds * 10_000.0 / pairs;
    }

    String kafkaCpuText() {
      return Double.isNaN(kafkaCpu) ? "unknown (in a container)" : String.format("%.2f", cpuPer10k(kafkaCpu));
    }

    void print() {
      System.out.printf("%-9s cold (first %,d pairs) %5.0f pairs/s; warm (%d rounds of %,d after %d settling) %5.0f"
              + " pairs/s, %d errors; CPU-s per 10,000 warm pairs: broker %.2f, Kafka %s, generators %.2f%n", label,
          WARMUP_PAIRS * GENERATORS, coldPairsPerSecond, MEASURED_ROUNDS, PAIRS, rounds, warmPairsPerSecond(), errors,
          cpuPer10k(brokerCpu), kafkaCpuText(), cpuPer10k(generatorCpu));
      System.out.printf("%-9s the broker's CPU-s per 10,000 warm pairs by thread role: %s%n", label,
          Machine.describeRoles(Map.of(), brokerCpuByRole, 10_000.0 / pairs));
    }

    @Override
    public void close() throws Exception {
      try (BrokerProcess stopping = broker) {
        load.close();
      }
    }
  }

  private static HttpClient client(Vertx vertx, int port) {
    return vertx.createHttpClient(new HttpClientOptions().setDefaultPort(port).setDefaultHost("127.0.0.1"),
        new PoolOptions().setHttp1MaxSize(64));
  }

  /**
   * A watch on A; a question created on A, then answered on B once B shows it (as a person answers what their
   * dashboard shows): from sending the answer to A's watcher seeing it.
   */
  private static Percentiles answerOnBSeenOnA(Context loop, HttpClient onA, HttpClient onB) throws Exception {
    String recipient = "ark://users/latency";
    Map<String, Promise<Long>> seen = new ConcurrentHashMap<>();
    SseParser frames = SseParser.ofJson(question -> {
      Promise<Long> waiting = seen.get(question.getString("id"));
      if (waiting != null && "answered".equals(question.getString("status"))) {
        waiting.tryComplete(System.nanoTime());
      }
    });
    onA.request(HttpMethod.GET, "/questions?watch=true&recipient=" + recipient)
        .compose(request -> request.send())
        .onSuccess(response -> response.handler(frames::feed))
        .await(10, TimeUnit.SECONDS);
    Percentiles latency = new Percentiles();
    for (int i = 0; i < LATENCY_SAMPLES; i++) {
      String id = new JsonObject(send(loop, onA, HttpMethod.POST, "/questions",
          "{\"recipient\":\"" + recipient + "\",\"content\":\"How fast is this? " + i + "\"}")).getString("id");
      Promise<Long> arrived = Promise.promise();
      seen.put(id, arrived);
      send(loop, onB, HttpMethod.GET, "/questions/" + id, null);
      long sent = System.nanoTime();
      send(loop, onB, HttpMethod.PATCH, "/questions/" + id, "{\"response\":\"fast\"}");
      latency.add(arrived.future().await(10, TimeUnit.SECONDS) - sent);
      seen.remove(id);
    }
    return latency;
  }

  /**
   * An agent's task on A, waiting in tasks/result on A; answered over REST on B once B shows it: from the answer to
   * the result.
   */
  private static Percentiles answerOnBToTaskResultOnA(Context loop, HttpClient mcpOnA, HttpClient onB) throws Exception {
    String session = McpBenchmark.post(mcpOnA, null, McpBenchmark.rpc(1, "initialize", new JsonObject()
            .put("protocolVersion", "2025-11-25").put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", "bench").put("version", "1"))))
        .compose(response -> response.body().map(body -> response.getHeader("Mcp-Session-Id")))
        .await(10, TimeUnit.SECONDS);
    Percentiles latency = new Percentiles();
    for (int i = 0; i < LATENCY_SAMPLES; i++) {
      String taskId = McpBenchmark.post(mcpOnA, session, McpBenchmark.rpc(2, "tools/call", new JsonObject()
              .put("name", "ask_question").put("task", new JsonObject()).put("arguments", new JsonObject()
                  .put("recipient", "ark://users/latency").put("content", "Result here? " + i))))
          .compose(response -> response.body().map(body -> {
            if (response.statusCode() != 200 || body.length() == 0) {
              throw new IllegalStateException("tools/call answered " + response.statusCode() + " "
                  + response.headers() + ": '" + body + "'");
            }
            return body.toJsonObject().getJsonObject("result").getJsonObject("task").getString("taskId");
          }))
          .await(10, TimeUnit.SECONDS);
      Promise<Long> result = Promise.promise();
      McpBenchmark.post(mcpOnA, session, McpBenchmark.rpc(3, "tasks/result", new JsonObject().put("taskId", taskId)))
          .onSuccess(stream -> stream.handler(SseParser.ofJson(message -> {
            if (message.containsKey("result")) {
              result.tryComplete(System.nanoTime());
            }
          })::feed))
          .await(10, TimeUnit.SECONDS);
      send(loop, onB, HttpMethod.GET, "/questions/" + taskId, null);
      long sent = System.nanoTime();
      send(loop, onB, HttpMethod.PATCH, "/questions/" + taskId, "{\"response\":\"here\"}");
      latency.add(result.future().await(10, TimeUnit.SECONDS) - sent);
    }
    return latency;
  }

  /**
   * One request and its whole body. The exchange runs on {@code loop}: a response's body must be asked for in the
   * step that delivers the response, and asked for from this thread, a moment later, it can already be gone (a
   * 200 with {@code content-length: 307} read as empty, about once in 500).
   */
  private static String send(Context loop, HttpClient http, HttpMethod method, String uri, String body) throws Exception {
    Promise<String> response = Promise.promise();
    loop.runOnContext(ignored -> http.request(new RequestOptions().setMethod(method).setURI(uri)
            .putHeader("Content-Type", "application/json"))
        .compose(request -> body == null ? request.send() : request.send(body))
        .compose(reply -> reply.body().map(buffer -> {
          if (reply.statusCode() / 100 != 2 || buffer.length() == 0) {
            throw new IllegalStateException(method + " " + uri + " answered " + reply.statusCode() + ": " + buffer);
          }
          return buffer.toString();
        }))
        .onComplete(response));
    return response.future().await(10, TimeUnit.SECONDS);
  }

  private ReplicaBenchmark() {
  }
}
