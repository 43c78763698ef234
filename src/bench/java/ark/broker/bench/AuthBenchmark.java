package ark.broker.bench;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Identities;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What authentication costs: the REST create/answer loops of {@link CoreBenchmark} and MCP {@code ask_question}
 * task calls, against two broker processes started alike except that one checks bearer tokens (a tokens file) and
 * the other runs open. Rounds alternate between them so warm-up and machine noise fall on both; the figures are the
 * median round of each. The target: auth on within 5% of auth off.
 */
public final class AuthBenchmark {
  private static final int ROUNDS = 3;
  private static final int SECONDS = 8;
  private static final int MCP_LANES = 32;
  private static final String AGENT = "bench-agent-token-1b7e";
  private static final String HUMAN = "bench-human-token-44c0";

  private AuthBenchmark() {
  }

  public static void main(String[] args) throws Exception {
    Vertx vertx = Vertx.vertx();
    Path work = Files.createTempDirectory("ark-auth-bench");
    Path tokens = work.resolve("tokens.json");
    Files.writeString(tokens, new JsonObject().put("tokens", new JsonArray()
        .add(new JsonObject().put("sha256", Identities.sha256(AGENT)).put("kind", "agent").put("name", "ark://agents/bench"))
        .add(new JsonObject().put("sha256", Identities.sha256(HUMAN)).put("kind", "human").put("name", "ark://users/john")))
        .encode());
    try (Broker open = new Broker(vertx, work.resolve("open"), Map.of());
         Broker secured = new Broker(vertx, work.resolve("secured"), Map.of("AUTH_MODE", "required",
             "AUTH_TOKENS_FILE", tokens.toString()))) {
      Map<String, List<Double>> figures = new HashMap<>();
      for (int round = 1; round <= ROUNDS; round++) {
        for (Broker broker : List.of(open, secured)) {
          String label = broker == open ? "auth off" : "auth on";
          boolean authenticated = broker == secured;
          ConcurrentLinkedQueue<String> ids = new ConcurrentLinkedQueue<>();
          CoreBenchmark.Result creates = CoreBenchmark.run(List.of(broker.rest), label + " REST creates", SECONDS, ids,
              false, authenticated ? AGENT : null);
          CoreBenchmark.Result answers = CoreBenchmark.run(List.of(broker.rest), label + " REST answers", SECONDS, ids,
              true, authenticated ? HUMAN : null);
          double asks = broker.mcpAsks(authenticated ? AGENT : null);
          System.out.printf("round %d, %-8s: creates %6.0f/s (%d errors), answers %6.0f/s (%d errors), MCP ask_question tasks %6.0f/s%n",
              round, label, creates.perSecond(), creates.errors(), answers.perSecond(), answers.errors(), asks);
          figures.computeIfAbsent(label + " creates", k -> new ArrayList<>()).add(creates.perSecond());
          figures.computeIfAbsent(label + " answers", k -> new ArrayList<>()).add(answers.perSecond());
          figures.computeIfAbsent(label + " mcp", k -> new ArrayList<>()).add(asks);
        }
      }
      System.out.printf("%nmedian of %d rounds of %d s; broker and load generator share this machine's %d cores%n",
          ROUNDS, SECONDS, Runtime.getRuntime().availableProcessors());
      for (String what : List.of("creates", "answers", "mcp")) {
        double off = median(figures.get("auth off " + what));
        double on = median(figures.get("auth on " + what));
        System.out.printf("%-8s auth off %7.0f/s   auth on %7.0f/s   on/off %.3f%n", what, off, on, on / off);
      }
    } finally {
      vertx.close();
    }
  }

  private static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }

  /** One broker process with its REST and MCP clients. */
  private static final class Broker implements AutoCloseable {
    final BrokerProcess process;
    final HttpClient rest;
    final HttpClient mcp;

    Broker(Vertx vertx, Path dataDir, Map<String, String> env) throws Exception {
      int port = BrokerProcess.freePort();
      int mcpPort = BrokerProcess.freePort();
      Map<String, String> all = new HashMap<>(env);
      all.put("LOG_LEVEL", "WARN");
      // One agent creates everything: budgets would measure themselves, not authentication.
      all.put("BUDGETS_CREATES_PER_MINUTE", "0");
      all.put("BUDGETS_MAX_PENDING_QUESTIONS", "0");
      all.put("MCP_PORT", Integer.toString(mcpPort));
      process = BrokerProcess.start(dataDir, port, all);
      rest = vertx.createHttpClient(new HttpClientOptions().setDefaultPort(port).setDefaultHost("127.0.0.1"),
          new PoolOptions().setHttp1MaxSize(64));
      mcp = vertx.createHttpClient(new HttpClientOptions().setDefaultPort(mcpPort).setDefaultHost("127.0.0.1"),
          new PoolOptions().setHttp1MaxSize(MCP_LANES * 2));
    }

    /** {@link #MCP_LANES} sessions asking one question after another as tasks for {@link #SECONDS} s; calls per second. */
    double mcpAsks(String bearer) throws Exception {
      AtomicLong done = new AtomicLong();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS);
      long started = System.nanoTime();
      List<Future<Void>> lanes = new ArrayList<>();
      for (int lane = 0; lane < MCP_LANES; lane++) {
        int agent = lane;
        JsonObject initialize = McpBenchmark.rpc(1, "initialize", new JsonObject().put("protocolVersion", "2025-11-25")
            .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "lane-" + lane)));
        lanes.add(McpBenchmark.post(mcp, null, bearer, initialize).compose(response -> {
          String session = response.getHeader("Mcp-Session-Id");
          return response.body().compose(ignored -> {
            Promise<Void> finished = Promise.promise();
            ask(session, bearer, agent, end, done, finished);
            return finished.future();
          });
        }));
      }
      Future.all(lanes).await(SECONDS + 60L, TimeUnit.SECONDS);
      return done.get() / ((System.nanoTime() - started) / 1e9);
    }

    private void ask(String session, String bearer, int lane, long end, AtomicLong done, Promise<Void> finished) {
      if (System.nanoTime() > end) {
        finished.complete();
        return;
      }
      JsonObject call = McpBenchmark.rpc(2, "tools/call", new JsonObject().put("name", "ask_question")
          .put("task", new JsonObject()).put("arguments", new JsonObject().put("recipient", "ark://users/john")
              .put("content", "Lane " + lane + ", call " + done.get() + "?")));
      McpBenchmark.post(mcp, session, bearer, call).compose(HttpClientResponse::body).onComplete(result -> {
        if (result.succeeded() && new JsonObject(result.result()).containsKey("result")) {
          done.incrementAndGet();
          ask(session, bearer, lane, end, done, finished);
        } else {
          finished.fail(result.succeeded() ? result.result().toString() : String.valueOf(result.cause()));
        }
      });
    }

    @Override
    public void close() throws Exception {
      process.close();
    }
  }
}
