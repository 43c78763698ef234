package ark.broker.bench;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.QuestionLogFile;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two figures of the hardening issue, each against the jar as its own process (fsync on), from a load
 * generator in this JVM on the same two cores:
 * <ul>
 *   <li>a soak: a steady mixed load (creates, answers, reads, open watches, MCP tasks) for
 *   {@code -Dsoak.minutes} (30), with the broker's heap after a full GC and the minute's p99 printed every
 *   minute, then the heap's trend;</li>
 *   <li>1,000 watchers that replay a long history and never read, while other clients create and read:
 *   their p99 and the broker's heap (capped at 256 MiB);</li>
 *   <li>retention: {@code -Dsoak.questions} (1,000,000) questions created and answered as fast as
 *   {@code -Dsoak.clients} (8) loops go, settled questions kept {@code -Dsoak.retentionSeconds} (60), with the heap
 *   after a full GC, the questions in memory and the question log's segment and snapshot bytes printed every minute:
 *   flat after the first retention period, whatever the history.</li>
 * </ul>
 * {@code mvn -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.SoakBenchmark}; {@code -Dsoak.part=retention}
 * (or {@code mixed}, {@code stalled}) runs one of them.
 */
public final class SoakBenchmark {
  private static final int MINUTES = Integer.getInteger("soak.minutes", 30);
  private static final int OPERATIONS_PER_SECOND = Integer.getInteger("soak.rate", 200);
  private static final int OPEN_WATCHES = 50;
  private static final Pattern HEAP = Pattern.compile("jvm_memory_used_bytes\\{area=\"heap\",id=\"[^\"]+\"} ([0-9.E+]+)");

  private SoakBenchmark() {
  }

  private static final String PART = System.getProperty("soak.part", "all");

  public static void main(String[] args) throws Exception {
    if (PART.equals("all") || PART.equals("stalled")) {
      stalledWatchers();
    }
    if (PART.equals("all") || PART.equals("mixed")) {
      soak();
    }
    if (PART.equals("all") || PART.equals("retention")) {
      retention();
    }
    System.exit(0);
  }

  // ---- retention: a long history in bounded memory and disk ----

  private static void retention() throws Exception {
    int questions = Integer.getInteger("soak.questions", 1_000_000);
    int clients = Integer.getInteger("soak.clients", 8);
    int retentionSeconds = Integer.getInteger("soak.retentionSeconds", 60);
    Path data = Files.createTempDirectory("ark-retention");
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.launch(data, port,
        Map.of("RETENTION_SETTLED_QUESTIONS_SECONDS", Integer.toString(retentionSeconds)), "512m")) {
      broker.awaitReady(Duration.ofSeconds(60));
      HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      Vertx vertx = Vertx.vertx();
      io.vertx.core.http.HttpClient http = vertx.createHttpClient(new HttpClientOptions()
          .setDefaultHost("127.0.0.1").setDefaultPort(port), new PoolOptions().setHttp1MaxSize(clients));
      Percentiles creates = new Percentiles();
      Percentiles answers = new Percentiles();
      AtomicLong errors = new AtomicLong();
      Thread load = new Thread(() -> {
        try {
          LoadGenerator.pairs(http, clients, questions, creates, answers, errors);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, "retention-load");
      load.start();
      System.out.printf("retention soak: %,d questions created and answered by %d loops, settled ones kept %d s"
          + " (retention.settledQuestionsSeconds), heap capped at 512 MiB, fsync on%n", questions, clients, retentionSeconds);
      System.out.println("minute  settled so far  pairs/s  heap MiB (after GC)  questions kept  segments MiB  snapshot MiB");
      long started = System.nanoTime();
      int before = 0;
      for (int minute = 1; load.isAlive(); minute++) {
        load.join(Math.max(1, TimeUnit.SECONDS.toMillis(60L * minute) - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)));
        int settled = answers.count();
        double heap = heapMiB(probe, broker, true);
        int kept = new JsonObject(send(probe, HttpRequest.newBuilder(broker.base.resolve("/readyz"))).body())
            .getInteger("questions");
        System.out.printf("%6d  %14d  %7d  %19.1f  %14d  %12.1f  %12.1f%n", minute, settled, (settled - before) / 60,
            heap, kept, mib(data.resolve("questions"), "segment-"), mib(data.resolve("questions"), "snapshot-"));
        before = settled;
      }
      System.out.printf("%,d pairs, %d errors; create %s; answer %s%n", answers.count(), errors.get(), creates.summary(),
          answers.summary());
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** What the files of {@code dir} whose names start with {@code prefix} hold, in MiB. */
  private static double mib(Path dir, String prefix) throws IOException {
    long bytes = 0;
    try (var files = Files.newDirectoryStream(dir, prefix + "*")) {
      for (Path file : files) {
        try {
          bytes += Files.size(file);
        } catch (NoSuchFileException deleted) {
          // A snapshot let it go as we looked.
        }
      }
    }
    return bytes / (double) (1 << 20);
  }

  // ---- the soak ----

  private static void soak() throws Exception {
    Path data = Files.createTempDirectory("ark-soak");
    try (BrokerProcess broker = BrokerProcess.launch(data, BrokerProcess.freePort(), Map.of(), "512m")) {
      broker.awaitReady(Duration.ofSeconds(60));
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      McpTestClient agent = new McpTestClient(broker.mcp).initialize();
      ConcurrentLinkedQueue<String> pending = new ConcurrentLinkedQueue<>();
      List<Socket> watches = new ArrayList<>();
      for (int i = 0; i < OPEN_WATCHES; i++) {
        watches.add(readingWatch(broker.base));
      }
      ExecutorService workers = Executors.newFixedThreadPool(16);
      List<double[]> minutes = new ArrayList<>();
      System.out.printf("soak: %d operations/s for %d minutes (40%% creates, 30%% answers, 15%% reads, 15%% MCP tasks),"
          + " %d open watches%n", OPERATIONS_PER_SECOND, MINUTES, OPEN_WATCHES);
      // Every question is kept, so the heap grows with them; per question it stays flat unless something leaks.
      System.out.println("minute  operations  errors  p99 ms  heap MiB (after GC)  questions  KiB per question");
      for (int minute = 1; minute <= MINUTES; minute++) {
        Percentiles latency = new Percentiles();
        AtomicInteger errors = new AtomicInteger();
        List<Future<?>> operations = new ArrayList<>();
        long start = System.nanoTime();
        for (int second = 0; second < 60; second++) {
          for (int i = 0; i < OPERATIONS_PER_SECOND; i++) {
            operations.add(workers.submit(() -> operation(http, broker.base, agent, pending, latency, errors)));
          }
          long next = start + TimeUnit.SECONDS.toNanos(second + 1);
          TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
        }
        // The minute's figures count all of its operations; one that failed outside its own error count ends the soak.
        for (Future<?> operation : operations) {
          operation.get();
        }
        double heap = heapMiB(http, broker, true);
        int questions = new JsonObject(send(http, HttpRequest.newBuilder(broker.base.resolve("/readyz"))).body())
            .getInteger("questions");
        minutes.add(new double[] {minute, heap * 1024 / Math.max(1, questions), latency.millis(99)});
        System.out.printf("%6d  %10d  %6d  %6.1f  %19.1f  %9d  %16.2f%n", minute, latency.count(), errors.get(),
            latency.millis(99), heap, questions, heap * 1024 / Math.max(1, questions));
      }
      workers.shutdownNow();
      for (Socket watch : watches) {
        watch.close();
      }
      if (MINUTES >= 3) {
        System.out.printf("heap per question, trend over the last two thirds: %+.3f KiB per minute%n",
            slope(minutes.subList(MINUTES / 3, MINUTES)));
      }
    }
  }

  private static void operation(HttpClient http, URI base, McpTestClient agent, ConcurrentLinkedQueue<String> pending,
                                Percentiles latency, AtomicInteger errors) {
    long begin = System.nanoTime();
    try {
      int kind = ThreadLocalRandom.current().nextInt(100);
      int status;
      if (kind < 40) {
        HttpResponse<String> created = send(http, HttpRequest.newBuilder(base.resolve("/questions"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"recipient\":\"ark://users/soak\",\"content\":\"Proceed?\"}")));
        status = created.statusCode();
        if (status == 201) {
          pending.add(new JsonObject(created.body()).getString("id"));
        }
      } else if (kind < 70) {
        String id = pending.poll();
        status = id == null ? 200 : send(http, HttpRequest.newBuilder(base.resolve("/questions/" + id))
            .header("Content-Type", "application/json")
            .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"response\":\"yes\"}"))).statusCode();
      } else if (kind < 85) {
        status = send(http, HttpRequest.newBuilder(base.resolve("/questions?status=pending&limit=20"))).statusCode();
      } else {
        JsonObject task = agent.call("tools/call", new JsonObject().put("name", "ask_question").put("task", new JsonObject())
            .put("arguments", new JsonObject().put("recipient", "ark://users/soak").put("content", "As a task?"))).result();
        status = task == null ? 500 : 200;
        if (task != null) {
          pending.add(task.getJsonObject("task").getString("taskId"));
        }
      }
      if (status >= 400) {
        errors.incrementAndGet();
      }
    } catch (Exception e) {
      errors.incrementAndGet();
    }
    latency.add(System.nanoTime() - begin);
  }

  // ---- watchers that never read ----

  private static void stalledWatchers() throws Exception {
    Path data = Files.createTempDirectory("ark-stalled");
    QuestionLogFile.writeCreations(data, 40_000, 600);
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.launch(data, port, Map.of(), "256m")) {
      broker.awaitReady(Duration.ofSeconds(90));
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      List<Socket> stalled = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        socket.getOutputStream().write("GET /questions?watch=true&resourceVersion=0 HTTP/1.1\r\nHost: localhost\r\n\r\n"
            .getBytes(StandardCharsets.ISO_8859_1));
        stalled.add(socket);
      }
      Percentiles others = new Percentiles();
      int failed = 0;
      for (int i = 0; i < 2000; i++) {
        long begin = System.nanoTime();
        HttpResponse<String> answer = send(http, i % 2 == 0
            ? HttpRequest.newBuilder(broker.base.resolve("/questions?limit=10"))
            : HttpRequest.newBuilder(broker.base.resolve("/questions")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"recipient\":\"ark://users/mary\",\"content\":\"New?\"}")));
        others.add(System.nanoTime() - begin);
        failed += answer.statusCode() >= 400 ? 1 : 0;
      }
      double heap = heapMiB(http, broker, false);
      System.out.printf("1000 watchers replaying 40,000 changes (~28 MB each) without reading, heap capped at 256 MiB:%n"
          + "  other clients: 2000 requests (half creates, half lists), %d failed, %s; broker heap %.1f MiB, alive: %s%n",
          failed, others.summary(), heap, broker.isAlive());
      for (Socket socket : stalled) {
        socket.close();
      }
    }
  }

  // ---- plumbing ----

  private static Socket readingWatch(URI base) throws Exception {
    Socket socket = new Socket(base.getHost(), base.getPort());
    socket.getOutputStream().write("GET /questions?watch=true HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    Thread reader = new Thread(() -> {
      try (InputStream in = socket.getInputStream()) {
        byte[] buffer = new byte[16384];
        while (in.read(buffer) >= 0) {
          // Reads everything, as a dashboard does.
        }
      } catch (Exception closed) {
        // The soak is over.
      }
    }, "soak-watch");
    reader.setDaemon(true);
    reader.start();
    return socket;
  }

  /** The broker's heap in use from /metrics; after a full GC ({@code jcmd GC.run}) when asked, so a trend means a leak. */
  private static double heapMiB(HttpClient http, BrokerProcess broker, boolean afterGc) throws Exception {
    if (afterGc) {
      new ProcessBuilder("jcmd", Long.toString(broker.pid()), "GC.run").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(30, TimeUnit.SECONDS);
    }
    URI base = broker.base;
    String metrics = send(http, HttpRequest.newBuilder(base.resolve("/metrics"))).body();
    double bytes = 0;
    Matcher heap = HEAP.matcher(metrics);
    while (heap.find()) {
      bytes += Double.parseDouble(heap.group(1));
    }
    return bytes / (1 << 20);
  }

  private static HttpResponse<String> send(HttpClient http, HttpRequest.Builder request) throws Exception {
    return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Least-squares slope of index 1 (heap per question) over index 0 (minute). */
  private static double slope(List<double[]> points) {
    double n = points.size();
    double sx = 0;
    double sy = 0;
    double sxy = 0;
    double sxx = 0;
    for (double[] point : points) {
      sx += point[0];
      sy += point[1];
      sxy += point[0] * point[1];
      sxx += point[0] * point[0];
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
  }
}
