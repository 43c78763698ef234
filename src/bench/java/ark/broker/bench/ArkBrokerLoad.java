package ark.broker.bench;

import ark.broker.contract.Checks;
import ark.broker.contract.OtlpRequests;
import ark.broker.testing.SseParser;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The outside load generator for the side-by-side benchmarks of Ark's broker routes (issues 26 and 27): a process of
 * its own that drives any base URL (this broker, or upstream ark-broker) with {@code --clients} callers and prints,
 * for each scenario, the throughput, the latency percentiles, the broker's CPU per 1,000 operations (read from
 * /proc for {@code --pid}) and what limits the figure; plus a {@code RESULT|...} line per figure for {@link BenchAll}.
 * <pre>
 * mvn -q -DskipTests test-compile dependency:build-classpath -Dmdep.outputFile=target/test-classpath -Dmdep.includeScope=test
 * java -cp target/test-classes:target/classes:$(cat target/test-classpath) ark.broker.bench.ArkBrokerLoad \
 *     --url http://127.0.0.1:8090 [--url2 http://127.0.0.1:8091] [--pid 1234[,5678]] [--clients 32] \
 *     [--warmup 3] [--seconds 10] [--stored 100000] [--chunks-per-post 500] [--paced-rate 100] [scenario...]
 * </pre>
 * Scenarios (default all): {@value #SCENARIOS}. With {@code --url2}, readers and watchers are on the second replica
 * and writers on the first (and {@code /complete} goes to the second, as a Service may send it). The scenarios write
 * into the broker under test: give it one of its own, fresh for comparable figures.
 */
public final class ArkBrokerLoad {
  static final String SCENARIOS = "messages conversation-reads chunks-long chunks-single chunk-latency events"
      + " event-latency session-reads spans-json spans-protobuf";
  private static final int READ_CONVERSATION_SIZE = 20;
  private static final int FILL_BATCH = 100;
  private static final int CHUNKS_PER_SINGLE_STREAM = 50;
  private static final int PACED_STREAMS = 4;
  private static final int SPANS_PER_REQUEST = 10;
  /** The controller's events come 64 or so per Query, a few Queries per session (upstream's projection walks them). */
  private static final int EVENTS_PER_QUERY = 64;
  private static final int QUERIES_PER_SESSION = 10;

  private final Options options;
  private final Vertx vertx = Vertx.vertx();
  private final HttpClient writer;
  private final HttpClient reader;
  /**
   * The paced scenarios' own event loop, one thread for the timer, the producers and the readers: an item is stamped
   * on the thread that writes it to its socket, so no hop inside the generator counts as the broker's latency.
   */
  private final Vertx pacedLoop = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
  private final HttpClient pacedWriter;
  private final HttpClient pacedReader;
  /** Makes this run's ids its own, so runs against one broker do not mix. */
  private final String run = UUID.randomUUID().toString().substring(0, 8);

  /** The command line. */
  record Options(URI url, URI url2, List<Long> pids, int clients, Duration warmUp, Duration window, int stored,
                 int chunksPerPost, int pacedRate, List<String> scenarios) {
    static Options parse(String[] args) {
      Map<String, String> named = new LinkedHashMap<>();
      List<String> scenarios = new ArrayList<>();
      for (int i = 0; i < args.length; i++) {
        if (args[i].startsWith("--")) {
          named.put(args[i].substring(2), args[++i]);
        } else {
          scenarios.add(args[i]);
        }
      }
      if (!named.containsKey("url")) {
        throw new IllegalArgumentException("--url http://host:port is required");
      }
      List<String> known = Arrays.asList(SCENARIOS.split(" "));
      for (String scenario : scenarios) {
        if (!known.contains(scenario)) {
          throw new IllegalArgumentException("unknown scenario " + scenario + "; known: " + SCENARIOS);
        }
      }
      return new Options(URI.create(named.get("url")),
          named.containsKey("url2") ? URI.create(named.get("url2")) : null,
          named.containsKey("pid") ? Arrays.stream(named.get("pid").split(",")).map(Long::valueOf).toList() : List.of(),
          Integer.parseInt(named.getOrDefault("clients", "32")),
          Duration.ofSeconds(Long.parseLong(named.getOrDefault("warmup", "3"))),
          Duration.ofSeconds(Long.parseLong(named.getOrDefault("seconds", "10"))),
          Integer.parseInt(named.getOrDefault("stored", "100000")),
          Integer.parseInt(named.getOrDefault("chunks-per-post", "500")),
          Integer.parseInt(named.getOrDefault("paced-rate", "100")),
          scenarios.isEmpty() ? known : scenarios);
    }
  }

  private ArkBrokerLoad(Options options) {
    this.options = options;
    this.writer = client(options.url());
    this.reader = options.url2() == null ? writer : client(options.url2());
    this.pacedWriter = client(pacedLoop, options.url());
    this.pacedReader = options.url2() == null ? pacedWriter : client(pacedLoop, options.url2());
  }

  private HttpClient client(URI base) {
    return client(vertx, base);
  }

  private HttpClient client(Vertx on, URI base) {
    // Twice the clients: a long stream POST and its /complete each hold a connection.
    return on.createHttpClient(new HttpClientOptions().setDefaultHost(base.getHost()).setDefaultPort(base.getPort())
        .setKeepAlive(true), new PoolOptions().setHttp1MaxSize(2 * options.clients() + PACED_STREAMS));
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    System.out.printf("ArkBrokerLoad %s against %s%s, broker pids %s, %d clients, warm-up %d s, window %d s; %s%n",
        Instant.now(), options.url(), options.url2() == null ? "" : " and " + options.url2(), options.pids(),
        options.clients(), options.warmUp().toSeconds(), options.window().toSeconds(), Machine.describe());
    ArkBrokerLoad load = new ArkBrokerLoad(options);
    try {
      for (String scenario : options.scenarios()) {
        load.run(scenario);
      }
    } finally {
      load.vertx.close().await(20, TimeUnit.SECONDS);
      load.pacedLoop.close().await(20, TimeUnit.SECONDS);
    }
  }

  private void run(String scenario) throws Exception {
    switch (scenario) {
      case "messages" -> messageWrites();
      case "conversation-reads" -> conversationReads();
      case "chunks-long" -> chunksOnLongPosts();
      case "chunks-single" -> chunksOnePostEach();
      case "chunk-latency" -> chunkToReaderLatency();
      case "events" -> eventWrites();
      case "event-latency" -> eventToWatcherLatency();
      case "session-reads" -> sessionReads();
      case "spans-json" -> spans(false);
      case "spans-protobuf" -> spans(true);
      default -> throw new IllegalArgumentException(scenario);
    }
  }

  private ClosedLoop.Result closedLoop(ClosedLoop.Operation operation) throws Exception {
    return ClosedLoop.run(options.clients(), options.warmUp(), options.window(), options.pids(), operation);
  }

  private void messageWrites() throws Exception {
    AtomicLong next = new AtomicLong();
    ClosedLoop.Result result = closedLoop((client, step) -> {
      long n = next.incrementAndGet();
      return send(writer, HttpMethod.POST, "/messages", "application/json",
          Checks.messages("bench-" + run + "-" + client, "q-" + n, Checks.chat("user", "message " + n)), 200)
          .map(body -> 1L);
    });
    report("Message writes (POST /messages, one message a request)", result, "writes/s",
        "≥ 3,500/s (upstream 0.1.67 in memory)");
  }

  /**
   * Reads of one {@value #READ_CONVERSATION_SIZE}-message conversation as the store grows to {@code --stored}
   * messages (other conversations, posted {@value #FILL_BATCH} a request): flat, or scanning everything?
   */
  private void conversationReads() throws Exception {
    String conversation = "bench-" + run + "-read";
    JsonObject[] messages = new JsonObject[READ_CONVERSATION_SIZE];
    Arrays.setAll(messages, i -> Checks.chat("user", "message " + i + " of the conversation read"));
    send(writer, HttpMethod.POST, "/messages", "application/json", Checks.messages(conversation, "q-read", messages), 200)
        .await(30, TimeUnit.SECONDS);
    long stored = READ_CONVERSATION_SIZE;
    for (long size : new long[] {options.stored() / 10, options.stored() / 2, options.stored()}) {
      long started = System.nanoTime();
      long added = fill(size - stored);
      stored += added;
      System.out.printf("  stored %d messages (%d more at %.0f messages/s, %d a request)%n", stored, added,
          added / ((System.nanoTime() - started) / 1e9), FILL_BATCH);
      ClosedLoop.Result result = closedLoop((client, step) ->
          send(reader, HttpMethod.GET, "/messages?conversation_id=" + conversation, null, null, 200).map(body -> {
            int read = new JsonObject(body).getJsonArray("items").size();
            if (read != READ_CONVERSATION_SIZE) {
              throw new IllegalStateException("read " + read + " messages of " + READ_CONVERSATION_SIZE);
            }
            return 1L;
          }));
      report(String.format("Reads of one %d-message conversation, %,d messages stored", READ_CONVERSATION_SIZE, stored),
          result, "reads/s", "≥ 5,000/s with 100k+ stored, flat as the store grows");
    }
  }

  /** Posts {@code count} messages, {@value #FILL_BATCH} a request, over the clients; returns how many it posted. */
  private long fill(long count) throws Exception {
    AtomicLong left = new AtomicLong(count);
    List<Future<Void>> loops = new ArrayList<>();
    JsonObject[] batch = new JsonObject[FILL_BATCH];
    Arrays.setAll(batch, i -> Checks.chat("assistant", "filler message " + i + " with some words in it as an LLM writes"));
    for (int client = 0; client < options.clients(); client++) {
      Promise<Void> done = Promise.promise();
      fillLoop("bench-" + run + "-fill-" + client, batch, left, done);
      loops.add(done.future());
    }
    Future.all(loops).await(1, TimeUnit.HOURS);
    return count - Math.max(0, left.get());
  }

  private void fillLoop(String conversation, JsonObject[] batch, AtomicLong left, Promise<Void> done) {
    if (left.getAndAdd(-FILL_BATCH) <= 0) {
      done.complete();
      return;
    }
    send(writer, HttpMethod.POST, "/messages", "application/json", Checks.messages(conversation, "q-fill", batch), 200)
        .onSuccess(body -> fillLoop(conversation, batch, left, done))
        .onFailure(done::fail);
  }

  /** The Go executor's way: one chunked NDJSON POST of {@code --chunks-per-post} lines per query, then /complete. */
  private void chunksOnLongPosts() throws Exception {
    AtomicLong next = new AtomicLong();
    ClosedLoop.Result result = closedLoop((client, step) -> {
      String query = "bench-" + run + "-long-" + next.incrementAndGet();
      return longPost(query, options.chunksPerPost()).compose(chunks -> timedComplete(query, step).map(chunks));
    });
    report(String.format("Chunks on long NDJSON posts (%d a post, then /complete)", options.chunksPerPost()), result,
        "chunks/s", "≥ 22,800/s");
    reportSteps("/complete after a long post", result);
  }

  /** The Python SDK's way: one POST per chunk; every {@value #CHUNKS_PER_SINGLE_STREAM} chunks, /complete. */
  private void chunksOnePostEach() throws Exception {
    AtomicLong next = new AtomicLong();
    String[] queries = new String[options.clients()];
    int[] posted = new int[options.clients()];
    ClosedLoop.Result result = closedLoop((client, step) -> {
      if (queries[client] == null) {
        queries[client] = "bench-" + run + "-single-" + next.incrementAndGet();
      }
      String query = queries[client];
      Future<Long> sent = send(writer, HttpMethod.POST, "/stream/" + query, "application/x-ndjson",
          Checks.chunk(query, "word ").encode() + "\n", 200).map(body -> 1L);
      if (++posted[client] < CHUNKS_PER_SINGLE_STREAM) {
        return sent;
      }
      posted[client] = 0;
      queries[client] = null;
      return sent.compose(one -> timedComplete(query, step).map(one));
    });
    report(String.format("Chunks one POST each (/complete every %d)", CHUNKS_PER_SINGLE_STREAM), result, "chunks/s",
        "≥ 2,400/s");
    reportSteps("/complete after per-chunk posts", result);
  }

  private Future<Buffer> timedComplete(String query, java.util.function.LongConsumer step) {
    long started = System.nanoTime();
    return send(reader, HttpMethod.POST, "/stream/" + query + "/complete", "application/json", "{}", 200)
        .onSuccess(body -> step.accept(System.nanoTime() - started));
  }

  /** A chunked NDJSON POST of {@code lines} chunks, written as fast as the connection takes them. */
  private Future<Long> longPost(String query, int lines) {
    return writer.request(new RequestOptions().setMethod(HttpMethod.POST).setURI("/stream/" + query)
            .putHeader("Content-Type", "application/x-ndjson"))
        .compose(request -> {
          request.setChunked(true);
          for (int i = 0; i < lines; i++) {
            request.write(Buffer.buffer(Checks.chunk(query, "token " + i + " ").encode() + "\n"));
          }
          return request.end().compose(ended -> request.response());
        })
        .compose(response -> answered(response, 200))
        .map(body -> new JsonObject(body).getLong("chunks_received"));
  }

  /**
   * {@value #PACED_STREAMS} long posts writing {@code --paced-rate} chunks a second in all, each chunk carrying its
   * send time, and a reader of each on {@code GET /stream/{q}?from-beginning=true}: how long a chunk takes from the
   * producer's write to the reader.
   */
  private void chunkToReaderLatency() throws Exception {
    Paced paced = new Paced();
    List<HttpClientRequest> producers = new ArrayList<>();
    List<String> queries = new ArrayList<>();
    for (int s = 0; s < PACED_STREAMS; s++) {
      String query = "bench-" + run + "-paced-" + s;
      queries.add(query);
      pacedReader.request(HttpMethod.GET, "/stream/" + query + "?from-beginning=true")
          .compose(HttpClientRequest::send)
          .onSuccess(response -> paced.readers.add(response.handler(SseParser.ofJson(chunk -> paced.arrived(Long.parseLong(
              chunk.getJsonArray("choices").getJsonObject(0).getJsonObject("delta").getString("content"))))::feed)));
      HttpClientRequest producer = pacedWriter.request(new RequestOptions().setMethod(HttpMethod.POST)
          .setURI("/stream/" + query).putHeader("Content-Type", "application/x-ndjson")).await(10, TimeUnit.SECONDS);
      producer.setChunked(true);
      producers.add(producer);
    }
    // One chunk at a time, evenly spaced, the streams in turn: a timer per stream would send them in bursts.
    long period = Math.max(1, 1000L / options.pacedRate());
    AtomicLong sent = new AtomicLong();
    long timer = pacedLoop.setPeriodic(period, fired -> {
      int s = (int) (sent.getAndIncrement() % PACED_STREAMS);
      producers.get(s).write(Buffer.buffer(Checks.chunk(queries.get(s), Long.toString(System.nanoTime())).encode() + "\n"));
    });
    ProcessCpu.Used used = paced.measure();
    pacedLoop.cancelTimer(timer);
    for (HttpClientRequest producer : producers) {
      producer.end().compose(ended -> producer.response()).compose(response -> answered(response, 200))
          .await(30, TimeUnit.SECONDS);
    }
    paced.readers.forEach(response -> response.request().connection().close());
    for (String query : queries) {
      send(reader, HttpMethod.POST, "/stream/" + query + "/complete", "application/json", "{}", 200)
          .await(30, TimeUnit.SECONDS);
    }
    reportLatency(String.format("Paced chunk to reader (%d streams, %d chunks/s in all%s)", PACED_STREAMS,
        options.pacedRate(), options.url2() == null ? "" : ", reader on the second replica"), paced, used,
        "p99 < 5 ms on one replica, < 20 ms across two");
  }

  private void eventWrites() throws Exception {
    AtomicLong next = new AtomicLong();
    ClosedLoop.Result result = closedLoop((client, step) -> {
      long n = next.incrementAndGet();
      long query = n / EVENTS_PER_QUERY;
      JsonObject event = Checks.controllerEvent(n % 2 == 0 ? "LLMCallComplete" : "LLMCallStart", "uid-" + run + "-" + query,
          "q-" + run + "-" + query, "bench-" + run + "-" + query / QUERIES_PER_SESSION, Instant.now());
      return send(writer, HttpMethod.POST, "/events", "application/json", event.encode(), 201).map(body -> 1L);
    });
    report("Event writes (POST /events as the controller sends them)", result, "events/s", "≥ 2,800/s");
  }

  /**
   * Reads of one session and of the dashboard's first page of sessions (newest first, with status counts) as the
   * sessions accumulate to a tenth of {@code --stored}, each session a Query's start and completion.
   */
  private void sessionReads() throws Exception {
    String prefix = "bench-" + run + "-session-";
    long stored = 0;
    for (long size : new long[] {options.stored() / 1000, options.stored() / 100, options.stored() / 10}) {
      long started = System.nanoTime();
      AtomicLong next = new AtomicLong(stored);
      long target = size;
      List<Future<Void>> loops = new ArrayList<>();
      for (int client = 0; client < options.clients(); client++) {
        Promise<Void> done = Promise.promise();
        sessionFillLoop(prefix, next, target, done);
        loops.add(done.future());
      }
      Future.all(loops).await(1, TimeUnit.HOURS);
      System.out.printf("  %d sessions (%d more at %.0f sessions/s, two events each)%n", size, size - stored,
          (size - stored) / ((System.nanoTime() - started) / 1e9));
      stored = size;
      String one = prefix + (size / 2);
      ClosedLoop.Result single = closedLoop((client, step) ->
          send(reader, HttpMethod.GET, "/sessions/" + one, null, null, 200).map(body -> 1L));
      report(String.format("Reads of one session, %,d sessions", size), single, "reads/s", "flat as sessions accumulate");
      ClosedLoop.Result page = closedLoop((client, step) ->
          send(reader, HttpMethod.GET, "/sessions?limit=20&sort=date&order=desc", null, null, 200).map(body -> {
            if (new JsonObject(body).getJsonArray("items").size() != Math.min(20, size)) {
              throw new IllegalStateException("a page of other than 20 sessions: " + body);
            }
            return 1L;
          }));
      report(String.format("Dashboard pages of 20 sessions, newest first, %,d sessions", size), page, "pages/s",
          "flat as sessions accumulate");
    }
  }

  private void sessionFillLoop(String prefix, AtomicLong next, long target, Promise<Void> done) {
    long n = next.getAndIncrement();
    if (n >= target) {
      done.complete();
      return;
    }
    String session = prefix + n;
    Instant at = Instant.now();
    send(writer, HttpMethod.POST, "/events", "application/json",
        Checks.controllerEvent("QueryExecutionStart", session + "-uid", "q-" + n, session, at).encode(), 201)
        .compose(body -> send(writer, HttpMethod.POST, "/events", "application/json",
            Checks.controllerEvent("QueryExecutionComplete", session + "-uid", "q-" + n, session, at.plusMillis(1))
                .encode(), 201))
        .onSuccess(body -> sessionFillLoop(prefix, next, target, done))
        .onFailure(done::fail);
  }

  /** Events posted at {@code --paced-rate} a second, each carrying its send time, to a watcher of their session. */
  private void eventToWatcherLatency() throws Exception {
    Paced paced = new Paced();
    String session = "bench-" + run + "-watched";
    paced.readers.add(pacedReader.request(HttpMethod.GET, "/events?watch=true&session_id=" + session)
        .compose(HttpClientRequest::send)
        .map(response -> response.handler(SseParser.ofJson(event -> paced.arrived(
            Long.parseLong(event.getJsonObject("data").getString("sentNanos"))))::feed))
        .await(10, TimeUnit.SECONDS));
    AtomicLong next = new AtomicLong();
    long timer = pacedLoop.setPeriodic(Math.max(1, 1000L / options.pacedRate()), tick -> {
      long query = next.incrementAndGet() / EVENTS_PER_QUERY;
      JsonObject event = Checks.controllerEvent("LLMCallStart", "uid-" + run + "-" + query, "q-" + query, session,
          Instant.now());
      // Stamped once a connection is there to send it: the generator's own queue is not the broker's latency.
      pacedWriter.request(new RequestOptions().setMethod(HttpMethod.POST).setURI("/events")
              .putHeader("Content-Type", "application/json"))
          .compose(request -> {
            event.getJsonObject("data").put("sentNanos", Long.toString(System.nanoTime()));
            return request.send(event.encode());
          })
          .compose(response -> answered(response, 201));
    });
    ProcessCpu.Used used = paced.measure();
    pacedLoop.cancelTimer(timer);
    paced.readers.forEach(response -> response.request().connection().close());
    reportLatency(String.format("Paced event to watcher (%d events/s%s)", options.pacedRate(),
        options.url2() == null ? "" : ", watcher on the second replica"), paced, used, "p99 < 20 ms across two replicas");
  }

  /** OTLP/HTTP export requests of {@value #SPANS_PER_REQUEST} spans, protobuf (as Ark sends them) or JSON. */
  private void spans(boolean protobuf) throws Exception {
    AtomicLong next = new AtomicLong();
    ClosedLoop.Result result = closedLoop((client, step) -> {
      String session = "bench-" + run + "-" + client;
      Buffer body;
      if (protobuf) {
        List<byte[]> spanIds = new ArrayList<>();
        for (int i = 0; i < SPANS_PER_REQUEST; i++) {
          spanIds.add(OtlpRequests.randomId(8));
        }
        body = Buffer.buffer(OtlpRequests.protobuf(OtlpRequests.randomId(16), spanIds, session, "bench"));
      } else {
        String trace = "trace-" + run + "-" + next.incrementAndGet();
        List<JsonObject> spans = new ArrayList<>();
        for (int i = 0; i < SPANS_PER_REQUEST; i++) {
          spans.add(OtlpRequests.jsonSpan(trace, "span-" + i, session));
        }
        body = OtlpRequests.json("bench", spans).toBuffer();
      }
      return send(writer, HttpMethod.POST, "/v1/traces", protobuf ? "application/x-protobuf" : "application/json", body,
          200).map(answer -> (long) SPANS_PER_REQUEST);
    });
    report(String.format("Spans (OTLP %s, %d a request)", protobuf ? "protobuf" : "JSON", SPANS_PER_REQUEST), result,
        "spans/s", "≥ 24,000/s");
  }

  /** Arrival latencies of paced items, counted in the measured window only. */
  private final class Paced {
    final Percentiles latency = new Percentiles();
    final List<HttpClientResponse> readers = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile boolean measuring;

    void arrived(long sentNanos) {
      if (measuring) {
        latency.add(System.nanoTime() - sentNanos);
      }
    }

    ProcessCpu.Used measure() throws InterruptedException {
      TimeUnit.MILLISECONDS.sleep(options.warmUp().toMillis());
      ProcessCpu cpu = new ProcessCpu(options.pids());
      measuring = true;
      TimeUnit.MILLISECONDS.sleep(options.window().toMillis());
      measuring = false;
      return cpu.used();
    }
  }

  private Future<Buffer> send(HttpClient http, HttpMethod method, String uri, String contentType, Object body,
                              int expected) {
    RequestOptions request = new RequestOptions().setMethod(method).setURI(uri);
    if (contentType != null) {
      request.putHeader("Content-Type", contentType);
    }
    Buffer bytes = body == null ? null : body instanceof Buffer buffer ? buffer : Buffer.buffer(body.toString());
    return http.request(request)
        .compose(sent -> bytes == null ? sent.send() : sent.send(bytes))
        .compose(response -> answered(response, expected));
  }

  private static Future<Buffer> answered(HttpClientResponse response, int expected) {
    return response.body().map(body -> {
      if (response.statusCode() != expected) {
        throw new IllegalStateException(response.request().getURI() + " answered " + response.statusCode() + " "
            + body.toString().substring(0, Math.min(200, body.length())));
      }
      return body;
    });
  }

  private void report(String figure, ClosedLoop.Result result, String unit, String target) {
    String value = String.format("%,.0f %s; latency %s; %s", result.itemsPerSecond(), unit, result.latency().summary(),
        result.errorsText());
    String cpu = "broker " + result.cpu().brokerPerThousand(result.items()) + " per 1,000";
    String limit = result.cpu().limit(options.clients());
    System.out.printf("%s, %d clients: %s; %s; limited by %s%n", figure, options.clients(), value, cpu, limit);
    ResultLine.print(figure, value + "; " + cpu, target, limit);
  }

  private void reportSteps(String figure, ClosedLoop.Result result) {
    String value = String.format("%d: %s", result.steps().count(), result.steps().summary());
    System.out.printf("%s, %d clients: %s%n", figure, options.clients(), value);
    ResultLine.print(figure, value, "", result.cpu().limit(options.clients()));
  }

  private void reportLatency(String figure, Paced paced, ProcessCpu.Used used, String target) {
    int count = paced.latency.count();
    String value = String.format("%d delivered in %.0f s: %s; broker %s per 1,000", count, used.seconds(),
        paced.latency.summary(), used.brokerPerThousand(Math.max(1, count)));
    String limit = used.limit(PACED_STREAMS);
    System.out.printf("%s: %s; limited by %s%n", figure, value, limit);
    ResultLine.print(figure, value, target, limit);
  }
}
