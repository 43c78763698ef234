package ark.broker.bench;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.TestKafka;
import io.vertx.core.Future;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * First one broker on its embedded log and one replica on Kafka, one after the other in the same run,
 * with the same load, for the ratio of their throughputs. Then two replicas sharing one Kafka broker, each in its own process ({@code java -jar}), the load
 * generator in this JVM, all on this machine: creates and answers per second at 32 concurrent
 * clients spread over both replicas, and how long an answer given on replica B takes to reach a
 * watcher on replica A, and an agent waiting in MCP tasks/result on replica A. Run with
 * {@code mvn -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.ReplicaBenchmark} ({@code -Dbench.seconds=10}).
 */
public final class ReplicaBenchmark {
  private static final int LATENCY_SAMPLES = 500;
  private static final int SECONDS = Integer.getInteger("bench.seconds", 10);
  private static final String LIMIT = "Kafka, the replicas and the load generator (in the benchmark's JVM) on the same cores";

  public static void main(String[] args) throws Exception {
    Vertx vertx = Vertx.vertx();
    Path work = Files.createTempDirectory("ark-bench-replicas");
    Map<String, String> environment = new HashMap<>(BrokerProcess.environmentOf(TestKafka.shared().cluster()));
    environment.put("LOG_LEVEL", "WARN");
    environment.put("ACCESS_LOG_LEVEL", "WARN");
    CoreBenchmark.Result[] embedded = oneBroker(vertx, work.resolve("embedded"), Map.of("LOG_LEVEL", "WARN"));
    CoreBenchmark.Result[] onKafka = oneBroker(vertx, work.resolve("one-replica"), environment);
    System.out.printf("%n1 broker, embedded log vs 1 replica on Kafka, %d cores%n", Runtime.getRuntime().availableProcessors());
    String[] names = {"creates", "answers"};
    for (int i = 0; i < 2; i++) {
      System.out.printf("%-9s embedded %6.0f req/s (%s), Kafka %6.0f req/s (%s): %.2fx%n", names[i],
          embedded[i].perSecond(), embedded[i].latency().summary(), onKafka[i].perSecond(), onKafka[i].latency().summary(),
          onKafka[i].perSecond() / embedded[i].perSecond());
      ResultLine.print("1 replica on Kafka / embedded log, " + names[i], String.format("%.0f / %.0f req/s = %.2fx",
          onKafka[i].perSecond(), embedded[i].perSecond(), onKafka[i].perSecond() / embedded[i].perSecond()), "≥ 0.8x", LIMIT);
    }
    int portA = BrokerProcess.freePort();
    int portB = BrokerProcess.freePort();
    try (BrokerProcess a = BrokerProcess.start(work.resolve("a"), portA, environment);
         BrokerProcess b = BrokerProcess.start(work.resolve("b"), portB, environment)) {
      HttpClient onA = client(vertx, portA);
      HttpClient onB = client(vertx, portB);
      ConcurrentLinkedQueue<String> created = new ConcurrentLinkedQueue<>();
      CoreBenchmark.run(List.of(onA, onB), "warm-up creates", 3, created, false);
      created.clear();
      CoreBenchmark.Result creates = CoreBenchmark.run(List.of(onA, onB), "creates", SECONDS, created, false);
      CoreBenchmark.Result answers = CoreBenchmark.run(List.of(onA, onB), "answers", SECONDS, created, true);
      Percentiles latency = answerOnBSeenOnA(onA, onB);
      Percentiles taskLatency = answerOnBToTaskResultOnA(client(vertx, a.mcp.getPort()), onB);
      System.out.printf("%n2 replicas, 1 Kafka broker, %d cores%n", Runtime.getRuntime().availableProcessors());
      System.out.printf("%-9s %8.0f req/s   %s   (%d errors)%n", "creates", creates.perSecond(), creates.latency().summary(), creates.errors());
      System.out.printf("%-9s %8.0f req/s   %s   (%d errors)%n", "answers", answers.perSecond(), answers.latency().summary(), answers.errors());
      System.out.printf("answer on B -> watcher on A (%d answers, one at a time): %s%n", latency.count(), latency.summary());
      System.out.printf("answer on B -> MCP tasks/result on A (%d answers, one at a time): %s%n", taskLatency.count(),
          taskLatency.summary());
      ResultLine.print("2 replicas: creates / answers, 32 clients", String.format("%.0f / %.0f req/s", creates.perSecond(),
          answers.perSecond()), "–", LIMIT);
      ResultLine.print("Answer on replica B to a watcher on A", latency.summary(), "p99 < 20 ms", LIMIT);
      ResultLine.print("Answer on replica B to MCP tasks/result on A", taskLatency.summary(), "p99 < 20 ms", LIMIT);
    } finally {
      vertx.close();
    }
  }

  /** Creates, then answers, at 32 concurrent clients on one broker process started with {@code environment}. */
  private static CoreBenchmark.Result[] oneBroker(Vertx vertx, Path dataDir, Map<String, String> environment) throws Exception {
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.start(dataDir, port, environment)) {
      HttpClient http = client(vertx, port);
      ConcurrentLinkedQueue<String> created = new ConcurrentLinkedQueue<>();
      CoreBenchmark.run(List.of(http), "warm-up creates", 3, created, false);
      created.clear();
      CoreBenchmark.Result creates = CoreBenchmark.run(List.of(http), "creates", SECONDS, created, false);
      CoreBenchmark.Result answers = CoreBenchmark.run(List.of(http), "answers", SECONDS, created, true);
      http.close();
      return new CoreBenchmark.Result[] {creates, answers};
    }
  }

  private static HttpClient client(Vertx vertx, int port) {
    return vertx.createHttpClient(new HttpClientOptions().setDefaultPort(port).setDefaultHost("127.0.0.1"),
        new PoolOptions().setHttp1MaxSize(64));
  }

  /** A watch on A; a question created on A, then answered on B: from sending the answer to A's watcher seeing it. */
  private static Percentiles answerOnBSeenOnA(HttpClient onA, HttpClient onB) throws Exception {
    String recipient = "ark://users/latency";
    Map<String, Promise<Long>> seen = new ConcurrentHashMap<>();
    SseFrames frames = new SseFrames(question -> {
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
      String id = new JsonObject(send(onA, HttpMethod.POST, "/questions",
          "{\"recipient\":\"" + recipient + "\",\"content\":\"How fast is this? " + i + "\"}")).getString("id");
      Promise<Long> arrived = Promise.promise();
      seen.put(id, arrived);
      long sent = System.nanoTime();
      send(onB, HttpMethod.PATCH, "/questions/" + id, "{\"response\":\"fast\"}");
      latency.add(arrived.future().await(10, TimeUnit.SECONDS) - sent);
      seen.remove(id);
    }
    return latency;
  }

  /** An agent's task on A, waiting in tasks/result on A; answered over REST on B: from the answer to the result. */
  private static Percentiles answerOnBToTaskResultOnA(HttpClient mcpOnA, HttpClient onB) throws Exception {
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
          .onSuccess(stream -> stream.handler(new SseFrames(message -> {
            if (message.containsKey("result")) {
              result.tryComplete(System.nanoTime());
            }
          })::feed))
          .await(10, TimeUnit.SECONDS);
      long sent = System.nanoTime();
      send(onB, HttpMethod.PATCH, "/questions/" + taskId, "{\"response\":\"here\"}");
      latency.add(result.future().await(10, TimeUnit.SECONDS) - sent);
    }
    return latency;
  }

  private static String send(HttpClient http, HttpMethod method, String uri, String body) throws Exception {
    Future<String> response = http.request(new RequestOptions().setMethod(method).setURI(uri)
            .putHeader("Content-Type", "application/json"))
        .compose(request -> request.send(body))
        .compose(reply -> reply.body().map(buffer -> {
          if (reply.statusCode() / 100 != 2 || buffer.length() == 0) {
            throw new IllegalStateException(method + " " + uri + " answered " + reply.statusCode() + ": " + buffer);
          }
          return buffer.toString();
        }));
    return response.await(10, TimeUnit.SECONDS);
  }

  private ReplicaBenchmark() {
  }
}
