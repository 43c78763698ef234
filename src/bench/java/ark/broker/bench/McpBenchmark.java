package ark.broker.bench;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.SseParser;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * 10,000 agents on one broker (its own process, -Xmx1g, fsync on), each with its own MCP session and a
 * pending ask_question: half plain calls holding their SSE stream open, half tasks that poll tasks/get
 * and wait in tasks/result. Then every question is answered over REST, and each answer's time to
 * reach its agent is measured. Also: how long a task-creating tools/call takes.
 * Run with {@code mvn -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.McpBenchmark}; {@code -Dcreators=N}
 * (default 16) agents create their tasks at once, {@code -Danswerers=N} (default 16) people answer at once.
 */
public final class McpBenchmark {
  private static final int AGENTS = Integer.getInteger("agents", 10_000);
  private static final int CONCURRENCY = 64;
  /** People answering at once, each answering the next question as soon as the last is recorded. */
  private static final int ANSWERERS = Integer.getInteger("answerers", 16);
  /** Agents creating their tasks at once. */
  private static final int CREATORS = Integer.getInteger("creators", 16);

  private final HttpClient mcp;
  private final HttpClient rest;
  private final Vertx vertx;
  private final Map<String, Long> answeredAt = new ConcurrentHashMap<>();
  private final Percentiles answerToResult = new Percentiles();
  private final Percentiles taskCreation = new Percentiles();
  private final AtomicInteger results = new AtomicInteger();
  private final AtomicInteger wrongResults = new AtomicInteger();
  private final AtomicInteger polls = new AtomicInteger();
  private final String[] sessions = new String[AGENTS];
  private final String[] taskIds = new String[AGENTS];

  private McpBenchmark(Vertx vertx, int mcpPort, int restPort) {
    this.vertx = vertx;
    // The pool cleaner walks every pooled connection each second; over 10,000 open streams that walk
    // stalls this load generator (not the broker) and would show up as broker latency.
    PoolOptions pool = new PoolOptions().setHttp1MaxSize(AGENTS * 2 + 100).setCleanerPeriod(0);
    this.mcp = vertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(mcpPort)
        .setIdleTimeout(0), pool);
    this.rest = vertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(restPort), pool);
  }

  public static void main(String[] args) throws Exception {
    System.setProperty("LOG_LEVEL", "WARN");
    Vertx vertx = Vertx.vertx();
    int restPort = BrokerProcess.freePort();
    int mcpPort = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.start(Files.createTempDirectory("ark-mcp-bench"), restPort,
        Map.of("MCP_PORT", Integer.toString(mcpPort), "LOG_LEVEL", "WARN", "MCP_TASK_POLL_INTERVAL_MILLIS", "5000",
            // Every agent comes from this one address, up to two connections each (its stream and a poll).
            "MCP_MAX_CONNECTIONS", Integer.toString(AGENTS * 2 + 100),
            "MCP_MAX_CONNECTIONS_PER_CLIENT", Integer.toString(AGENTS * 2 + 100)))) {
      new McpBenchmark(vertx, mcpPort, restPort).run();
    } finally {
      vertx.close();
    }
  }

  private void run() throws Exception {
    long started = System.nanoTime();
    inParallel(AGENTS, this::initialize);
    System.out.printf("%d MCP sessions initialized in %.1f s%n", AGENTS, (System.nanoTime() - started) / 1e9);

    warmUp();
    int tasks = AGENTS / 2;
    started = System.nanoTime();
    inParallel(tasks, this::askAsTask, CREATORS);
    double creationSeconds = (System.nanoTime() - started) / 1e9;
    inParallel(tasks, agent -> stream(agent, rpc(3, "tasks/result", new JsonObject().put("taskId", taskIds[agent]))));
    System.out.printf("%d task-augmented ask_question calls, %d at a time, in %.1f s: %s (p95 %.2f ms)%n", tasks,
        CREATORS, creationSeconds, taskCreation.summary(), taskCreation.millis(95));
    inParallel(AGENTS - tasks, i -> askPlainly(tasks + i));
    List<Long> polling = new ArrayList<>();
    for (int agent = 0; agent < tasks; agent++) {
      polling.add(poll(agent));
    }
    Map<String, String> questionByRecipient = pendingQuestions();
    System.out.printf("%d questions pending, %d agents waiting (%d plain streams, %d tasks/result streams)%n",
        questionByRecipient.size(), AGENTS, AGENTS - tasks, tasks);
    System.out.printf("broker heap while all wait: %s%n", heap());

    started = System.nanoTime();
    List<String> recipients = new ArrayList<>(questionByRecipient.keySet());
    inParallel(recipients.size(), i -> answer(questionByRecipient.get(recipients.get(i)), recipients.get(i)), ANSWERERS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (results.get() < AGENTS && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    polling.forEach(vertx::cancelTimer);
    System.out.printf("answered %d over REST, %d at a time, in %.1f s; %d of %d agents got their answer (%d wrong, %d tasks/get polls)%n",
        recipients.size(), ANSWERERS, (System.nanoTime() - started) / 1e9, results.get(), AGENTS, wrongResults.get(), polls.get());
    System.out.printf("answer-to-result: %s%n", answerToResult.summary());
    System.out.printf("broker heap after: %s%n", heap());
  }

  /** The JIT compiles the hot paths first: 3,000 task calls from agent 0's session, withdrawn afterwards. */
  private void warmUp() throws Exception {
    List<String> ids = java.util.Collections.synchronizedList(new ArrayList<>());
    inParallel(3000, i -> post(sessions[0], rpc(9, "tools/call", new JsonObject().put("name", "ask_question")
            .put("task", new JsonObject()).put("arguments", new JsonObject().put("recipient", "ark://users/warm-up")
                .put("content", "Warm-up " + i))))
        .compose(HttpClientResponse::body)
        .map(body -> {
          ids.add(new JsonObject(body).getJsonObject("result").getJsonObject("task").getString("taskId"));
          return null;
        }));
    inParallel(ids.size(), i -> rest.request(HttpMethod.DELETE, "/questions/" + ids.get(i))
        .compose(r -> r.send()).compose(HttpClientResponse::body).mapEmpty());
  }

  private Future<Void> initialize(int agent) {
    return initialize(mcp, "agent-" + agent).map(session -> {
      sessions[agent] = session;
      return null;
    });
  }

  /** Starts a session for a client named {@code name}; completes with its id. */
  static Future<String> initialize(HttpClient mcp, String name) {
    JsonObject initialize = rpc(1, "initialize", new JsonObject().put("protocolVersion", "2025-11-25")
        .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", name).put("version", "1")));
    return post(mcp, null, initialize).compose(response -> response.body().map(body -> response.getHeader("Mcp-Session-Id")));
  }

  private Future<Void> askAsTask(int agent) {
    long sent = System.nanoTime();
    JsonObject call = rpc(2, "tools/call", ask(agent).put("task", new JsonObject()));
    return post(sessions[agent], call).compose(HttpClientResponse::body).compose(body -> {
      taskCreation.add(System.nanoTime() - sent);
      taskIds[agent] = new JsonObject(body).getJsonObject("result").getJsonObject("task").getString("taskId");
      return Future.<Void>succeededFuture();
    });
  }

  private Future<Void> askPlainly(int agent) {
    return stream(agent, rpc(2, "tools/call", ask(agent)));
  }

  /** Opens a request whose reply streams; completes once the stream is open, records the result when it comes. */
  private Future<Void> stream(int agent, JsonObject request) {
    return post(sessions[agent], request).map(response -> {
      SseParser frames = SseParser.ofJson(message -> {
        JsonObject result = message.getJsonObject("result");
        if (result == null) {
          return;
        }
        JsonObject structured = result.getJsonObject("structuredContent");
        Long answered = answeredAt.get(structured.getString("questionId"));
        if (answered != null) {
          answerToResult.add(System.nanoTime() - answered);
        }
        if (!("answer for agent-" + agent).equals(structured.getString("response"))) {
          wrongResults.incrementAndGet();
        }
        results.incrementAndGet();
      });
      response.handler(frames::feed);
      return null;
    });
  }

  /** Each task agent polls tasks/get every pollInterval (5 s), starting at its own moment, as clients do. */
  private long poll(int agent) {
    long first = 1 + (long) (Math.random() * 5000);
    return vertx.setPeriodic(first, 5000, tick -> {
      polls.incrementAndGet();
      post(sessions[agent], rpc(4, "tasks/get", new JsonObject().put("taskId", taskIds[agent])))
          .compose(HttpClientResponse::body);
    });
  }

  private Map<String, String> pendingQuestions() throws Exception {
    Map<String, String> byRecipient = Map.of();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (byRecipient.size() < AGENTS && System.nanoTime() < deadline) {
      byRecipient = pendingByRecipient(rest);
    }
    return byRecipient;
  }

  /** Every pending question's id, by its recipient, read page by page over REST. */
  static Map<String, String> pendingByRecipient(HttpClient rest) throws Exception {
    Map<String, String> byRecipient = new java.util.HashMap<>();
    String next = null;
    do {
      String uri = "/questions?status=pending&limit=1000" + (next == null ? "" : "&continue=" + next);
      JsonObject page = rest.request(HttpMethod.GET, uri).compose(r -> r.send()).compose(HttpClientResponse::body)
          .map(Buffer::toJsonObject).await(30, TimeUnit.SECONDS);
      JsonArray items = page.getJsonArray("items");
      for (int i = 0; i < items.size(); i++) {
        byRecipient.put(items.getJsonObject(i).getString("recipient"), items.getJsonObject(i).getString("id"));
      }
      next = page.getString("continue");
    } while (next != null);
    return byRecipient;
  }

  private Future<Void> answer(String questionId, String recipient) {
    String agent = recipient.substring(recipient.lastIndexOf('/') + 1);
    answeredAt.put(questionId, System.nanoTime());
    return rest.request(new RequestOptions().setMethod(HttpMethod.PATCH).setURI("/questions/" + questionId)
            .putHeader("Content-Type", "application/json"))
        .compose(r -> r.send(new JsonObject().put("response", "answer for " + agent).encode()))
        .compose(HttpClientResponse::body).mapEmpty();
  }

  private String heap() throws Exception {
    String metrics = rest.request(HttpMethod.GET, "/metrics").compose(r -> r.send()).compose(HttpClientResponse::body)
        .await(10, TimeUnit.SECONDS).toString();
    double used = metrics.lines().filter(l -> l.startsWith("jvm_memory_used_bytes{area=\"heap\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    return String.format("%.0f MiB used (limit -Xmx1g)", used / (1 << 20));
  }

  private Future<HttpClientResponse> post(String session, JsonObject message) {
    return post(mcp, session, message);
  }

  /** Sends one JSON-RPC message on {@code session} (none for initialize). */
  static Future<HttpClientResponse> post(HttpClient mcp, String session, JsonObject message) {
    return post(mcp, session, null, message);
  }

  /**
   * The same, with {@code Authorization: Bearer <bearer>} (null for none). The benchmarks' plain calls hold their
   * streams until the answer, as the calls of a host that says it waits that long ({@code X-Ark-Wait-Seconds: 0}).
   */
  static Future<HttpClientResponse> post(HttpClient mcp, String session, String bearer, JsonObject message) {
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setURI("/mcp")
        .putHeader("Content-Type", "application/json").putHeader("Accept", "application/json, text/event-stream")
        .putHeader("X-Ark-Wait-Seconds", "0");
    if (bearer != null) {
      options.putHeader("Authorization", "Bearer " + bearer);
    }
    if (session != null) {
      options.putHeader("Mcp-Session-Id", session).putHeader("MCP-Protocol-Version", "2025-11-25");
    }
    return mcp.request(options).compose(request -> request.send(message.encode()));
  }

  private static JsonObject ask(int agent) {
    return new JsonObject().put("name", "ask_question").put("arguments", new JsonObject()
        .put("recipient", "ark://users/agent-" + agent).put("content", "May agent " + agent + " proceed?"));
  }

  static JsonObject rpc(int id, String method, JsonObject params) {
    JsonObject message = new JsonObject().put("jsonrpc", "2.0").put("id", id).put("method", method);
    return params == null ? message : message.put("params", params);
  }

  private void inParallel(int count, IntFunction<Future<Void>> task) throws Exception {
    inParallel(count, task, CONCURRENCY);
  }

  private void inParallel(int count, IntFunction<Future<Void>> task, int lanes) throws Exception {
    inParallel(vertx, count, task, lanes);
  }

  /** Runs {@code task(0..count-1)} with at most {@code lanes} at a time, and waits for all. */
  static void inParallel(Vertx vertx, int count, IntFunction<Future<Void>> task, int lanes) throws Exception {
    AtomicInteger next = new AtomicInteger();
    List<Future<Void>> all = new ArrayList<>();
    for (int lane = 0; lane < lanes; lane++) {
      Promise<Void> done = Promise.promise();
      all.add(done.future());
      vertx.runOnContext(v -> nextTask(next, count, task, done));
    }
    Future.all(all).await(300, TimeUnit.SECONDS);
  }

  private static void nextTask(AtomicInteger next, int count, IntFunction<Future<Void>> task, Promise<Void> done) {
    int i = next.getAndIncrement();
    if (i >= count) {
      done.tryComplete();
      return;
    }
    task.apply(i).onComplete(result -> {
      if (result.failed()) {
        done.tryFail(result.cause());
      } else {
        nextTask(next, count, task, done);
      }
    });
  }
}
