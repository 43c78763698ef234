package ark.broker.bench;

import ark.broker.testing.SseParser;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * The waiting agents and the person answering them, in a process of their own (so their CPU is not the
 * broker's): {@code agents} MCP sessions, each with one pending {@code ask_question}, the even ones as
 * tasks waiting in {@code tasks/result}, the odd ones as plain calls holding their SSE stream open. It
 * first runs {@code warmup} such agents through the whole cycle unmeasured, then sets up the measured
 * ones, prints {@code waiting <n>} and waits for a line on stdin. Then it answers a quarter of them one at
 * a time, a quarter {@code concurrency} at a time (printing {@code measured} after these two phases), and
 * the rest 16 at a time, and prints each phase's answer-to-result latency (from the PATCH's 2xx arriving
 * here to the result arriving at the agent, both read from {@link System#nanoTime()}) and {@code done}.
 * Arguments: {@code host restPort mcpPort agents warmup concurrency}.
 */
public final class AnswerLatencyAgents {
  private static final int SETUP_LANES = 64;
  private static final int DRAIN_LANES = 16;

  private final Vertx vertx;
  private final HttpClient mcp;
  private final HttpClient rest;
  /** Per question, until the other one comes too: when its PATCH's 2xx arrived, or when its result did. */
  private final Map<String, Long> patchAnswered = new ConcurrentHashMap<>();
  private final Map<String, Long> resultArrived = new ConcurrentHashMap<>();
  /** The agent (also the recipient's name) of each question. */
  private final Map<String, String> recipients = new ConcurrentHashMap<>();
  private final Map<String, Percentiles> phaseOf = new ConcurrentHashMap<>();
  private final AtomicInteger results = new AtomicInteger();
  private final AtomicInteger wrongResults = new AtomicInteger();
  private final AtomicInteger resultsBefore2xx = new AtomicInteger();

  private AnswerLatencyAgents(Vertx vertx, String host, int restPort, int mcpPort, int streams) {
    this.vertx = vertx;
    // No pool cleaner: its walk over thousands of open streams each second would stall this process.
    this.mcp = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(host).setDefaultPort(mcpPort).setIdleTimeout(0),
        new PoolOptions().setHttp1MaxSize(streams + 100).setCleanerPeriod(0));
    this.rest = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(host).setDefaultPort(restPort),
        new PoolOptions().setHttp1MaxSize(64));
  }

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int restPort = Integer.parseInt(args[1]);
    int mcpPort = Integer.parseInt(args[2]);
    int agents = Integer.parseInt(args[3]);
    int warmup = Integer.parseInt(args[4]);
    int concurrency = Integer.parseInt(args[5]);
    Vertx vertx = Vertx.vertx();
    try {
      run(vertx, new AnswerLatencyAgents(vertx, host, restPort, mcpPort, Math.max(agents, warmup)), agents, warmup,
          concurrency);
    } catch (Exception e) {
      // Vert.x's threads would keep this process alive, and the benchmark waiting for it.
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static void run(Vertx vertx, AnswerLatencyAgents generator, int agents, int warmup, int concurrency)
      throws Exception {

    Group warm = generator.waiting("warm-up", warmup);
    generator.answer(warm.order, 0, warm.order.size(), 4, null);
    generator.awaitResults(warmup);

    Group group = generator.waiting("agent", agents);
    System.out.println("waiting " + agents);
    new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    int quarter = agents / 4;
    Percentiles[] singleByKind = {new Percentiles(), new Percentiles()};
    Percentiles[] concurrentByKind = {new Percentiles(), new Percentiles()};
    long started = System.nanoTime();
    generator.answer(group.order, 0, quarter, 1, question -> singleByKind[group.kind(question)]);
    double singleSeconds = (System.nanoTime() - started) / 1e9;
    started = System.nanoTime();
    generator.answer(group.order, quarter, 2 * quarter, concurrency, question -> concurrentByKind[group.kind(question)]);
    double concurrentSeconds = (System.nanoTime() - started) / 1e9;
    generator.awaitResults(warmup + 2 * quarter);
    System.out.println("measured " + 2 * quarter);
    Percentiles[] drainByKind = {new Percentiles(), new Percentiles()};
    started = System.nanoTime();
    generator.answer(group.order, 2 * quarter, agents, DRAIN_LANES, question -> drainByKind[group.kind(question)]);
    double drainSeconds = (System.nanoTime() - started) / 1e9;
    generator.awaitResults(warmup + agents);

    report("one at a time", quarter, singleSeconds, agents, singleByKind);
    report(concurrency + " at a time", quarter, concurrentSeconds, agents - quarter, concurrentByKind);
    report(DRAIN_LANES + " at a time (the rest)", agents - 2 * quarter, drainSeconds, agents - 2 * quarter, drainByKind);
    int answered = warmup + agents;
    System.out.printf("results: %d of %d answers reached their agent, %d lost, %d with another agent's answer;"
            + " %d results arrived before their PATCH's 2xx (counted as negative latency)%n",
        generator.results.get(), answered, answered - generator.results.get(), generator.wrongResults.get(),
        generator.resultsBefore2xx.get());
    System.out.println("done");
    System.out.flush();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static void report(String phase, int answers, double seconds, int waitingAtStart, Percentiles[] byKind) {
    System.out.printf("%s: %d answers in %.2f s (%.0f/s), %d agents waiting at the start%n", phase, answers, seconds,
        answers / seconds, waitingAtStart);
    System.out.printf("  plain tools/call  %s%n  tasks/result      %s%n", line(byKind[1]), line(byKind[0]));
    String target = waitingAtStart >= 10_000 ? "p99 < 20 ms" : "p50 < 1 ms, p99 < 5 ms";
    String limit = "the broker and this process share " + Machine.cores() + " cores, load average " + Machine.loadAverage()
        + "; an fsync per answer";
    // Readers of the table see negative figures: the broker tells the agent before it replies to the PATCH.
    String figure = "Answer to result (from the answer's 2xx; negative: the agent had its result first), ";
    ResultLine.print(figure + "plain call, " + phase + ", " + waitingAtStart + " waiting", line(byKind[1]).strip(), target, limit);
    ResultLine.print(figure + "tasks/result, " + phase + ", " + waitingAtStart + " waiting", line(byKind[0]).strip(), target, limit);
  }

  private static String line(Percentiles latency) {
    return String.format("%5d results: p50 %.3f ms, p95 %.3f ms, p99 %.3f ms, max %.3f ms", latency.count(),
        latency.millis(50), latency.millis(95), latency.millis(99), latency.millis(100));
  }

  /** Agents whose questions wait, and the order to answer them in: task and plain alternately. */
  private record Group(List<String> order, Map<String, Integer> kinds) {
    /** 0 for a task, 1 for a plain call. */
    int kind(String question) {
      return kinds.get(question);
    }
  }

  /** {@code count} agents named {@code <prefix>-<i>}, each with a pending ask_question, half as tasks. */
  private Group waiting(String prefix, int count) throws Exception {
    String[] sessions = new String[count];
    String[] tasks = new String[count];
    inParallel(count, agent -> McpBenchmark.initialize(mcp, prefix + "-" + agent).map(session -> {
      sessions[agent] = session;
      return null;
    }), SETUP_LANES);
    inParallel(count, agent -> {
      JsonObject ask = ask(prefix + "-" + agent);
      if (agent % 2 == 1) {
        return stream(prefix + "-" + agent, sessions[agent], McpBenchmark.rpc(2, "tools/call", ask));
      }
      return McpBenchmark.post(mcp, sessions[agent], McpBenchmark.rpc(2, "tools/call", ask.put("task", new JsonObject())))
          .compose(HttpClientResponse::body)
          .compose(body -> {
            tasks[agent] = new JsonObject(body).getJsonObject("result").getJsonObject("task").getString("taskId");
            return stream(prefix + "-" + agent, sessions[agent],
                McpBenchmark.rpc(3, "tasks/result", new JsonObject().put("taskId", tasks[agent])));
          });
    }, SETUP_LANES);
    Map<String, String> byRecipient = pending(prefix);
    if (byRecipient.size() != count) {
      throw new IllegalStateException(byRecipient.size() + " of " + count + " questions of " + prefix + " pending");
    }
    List<String> order = new ArrayList<>(count);
    Map<String, Integer> kinds = new ConcurrentHashMap<>();
    for (int agent = 0; agent < count; agent++) {
      String question = byRecipient.get("ark://users/" + prefix + "-" + agent);
      order.add(question);
      kinds.put(question, agent % 2);
    }
    return new Group(order, kinds);
  }

  private static JsonObject ask(String agent) {
    return new JsonObject().put("name", "ask_question").put("arguments", new JsonObject()
        .put("recipient", "ark://users/" + agent).put("content", "May " + agent + " proceed?"));
  }

  /** Opens a call whose reply streams; completes once the stream is open (the broker then waits for the answer). */
  private Future<Void> stream(String agent, String session, JsonObject request) {
    return McpBenchmark.post(mcp, session, request).map(response -> {
      if (response.statusCode() != 200 || !response.getHeader("Content-Type").startsWith("text/event-stream")) {
        throw new IllegalStateException(agent + ": " + request.getString("method") + " answered " + response.statusCode()
            + " " + response.getHeader("Content-Type") + " instead of a stream");
      }
      SseParser frames = SseParser.ofJson(message -> {
        JsonObject result = message.getJsonObject("result");
        if (result != null) {
          arrived(agent, result.getJsonObject("structuredContent"), System.nanoTime());
        }
      });
      response.handler(frames::feed);
      return null;
    });
  }

  private void arrived(String agent, JsonObject result, long now) {
    if (!("answer for " + agent).equals(result.getString("response"))) {
      wrongResults.incrementAndGet();
    }
    String question = result.getString("questionId");
    Long answered = patchAnswered.remove(question);
    if (answered != null) {
      record(question, now - answered);
    } else {
      resultArrived.put(question, now);
      // The 2xx may have been recorded between the two calls above.
      Long late = patchAnswered.remove(question);
      if (late != null && resultArrived.remove(question) != null) {
        record(question, now - late);
      }
    }
    results.incrementAndGet();
  }

  private void answered(String question, long now) {
    Long arrived = resultArrived.remove(question);
    if (arrived != null) {
      resultsBefore2xx.incrementAndGet();
      record(question, arrived - now);
    } else {
      patchAnswered.put(question, now);
      Long early = resultArrived.remove(question);
      if (early != null && patchAnswered.remove(question) != null) {
        resultsBefore2xx.incrementAndGet();
        record(question, early - now);
      }
    }
  }

  private void record(String question, long nanos) {
    Percentiles phase = phaseOf.remove(question);
    if (phase != null) {
      phase.add(nanos);
    }
  }

  /** Answers {@code order[from..to)}, {@code lanes} at a time, each lane sending its next answer on the last one's 2xx. */
  private void answer(List<String> order, int from, int to, int lanes,
                      java.util.function.Function<String, Percentiles> phase) throws Exception {
    inParallel(to - from, i -> {
      String question = order.get(from + i);
      if (phase != null) {
        phaseOf.put(question, phase.apply(question));
      }
      return patch(question);
    }, lanes);
  }

  private Future<Void> patch(String question) {
    return rest.request(new RequestOptions().setMethod(HttpMethod.PATCH).setURI("/questions/" + question)
            .putHeader("Content-Type", "application/json"))
        .compose(request -> request.send(new JsonObject().put("response", "answer for " + recipientOf(question)).encode()))
        .compose(response -> {
          long now = System.nanoTime();
          if (response.statusCode() / 100 != 2) {
            return Future.failedFuture("answering " + question + " got " + response.statusCode());
          }
          answered(question, now);
          return response.body().mapEmpty();
        });
  }

  private String recipientOf(String question) {
    return recipients.get(question);
  }

  /** The pending questions of agents named {@code prefix-*}, by recipient; remembers each one's agent. */
  private Map<String, String> pending(String prefix) throws Exception {
    Map<String, String> byRecipient = new ConcurrentHashMap<>();
    McpBenchmark.pendingByRecipient(rest).forEach((recipient, question) -> {
      if (recipient.startsWith("ark://users/" + prefix + "-")) {
        byRecipient.put(recipient, question);
        recipients.put(question, recipient.substring("ark://users/".length()));
      }
    });
    return byRecipient;
  }

  private void awaitResults(int expected) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (results.get() < expected && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(10);
    }
  }

  private void inParallel(int count, IntFunction<Future<Void>> task, int lanes) throws Exception {
    McpBenchmark.inParallel(vertx, count, task, lanes);
  }
}
