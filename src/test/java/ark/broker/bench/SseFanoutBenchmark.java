package ark.broker.bench;

import ark.broker.testing.BrokerProcess;

import java.io.DataInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * SSE fan-out: {@code -Dbench.watchers=10000} watch streams held by {@code -Dbench.watcherProcesses=4}
 * {@link SseWatchers} processes, then {@code -Dbench.changes=200} creates {@code -Dbench.intervalMillis=20}
 * apart; every stream must see every change, timed from the create's {@link System#nanoTime} (put in
 * its content) to its arrival. The broker is the jar ({@code java -jar}, fsync on) with its HTTP
 * connection bounds raised for this run only ({@code -Dbench.brokerJavaOptions} adds JVM options, e.g. a
 * flight recording). Run with
 * {@code mvn -o -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.SseFanoutBenchmark}.
 */
public final class SseFanoutBenchmark {
  private static final String RECIPIENT = "ark://users/fanout";

  public static void main(String[] args) throws Exception {
    boolean quick = Boolean.getBoolean("bench.quick");
    int processes = Integer.getInteger("bench.watcherProcesses", 4);
    int watchers = Integer.getInteger("bench.watchers", quick ? 2_000 : 10_000);
    int changes = Integer.getInteger("bench.changes", quick ? 50 : 200);
    int intervalMillis = Integer.getInteger("bench.intervalMillis", 20);
    int warmupChanges = Integer.getInteger("bench.warmupChanges", quick ? 50 : 200);
    String loadBefore = Machine.loadAverage();
    Path work = Files.createTempDirectory("ark-bench-sse");
    int port = BrokerProcess.freePort();
    String connections = Integer.toString(watchers + 1_000);
    Map<String, String> environment = new HashMap<>(Map.of("LOG_LEVEL", "WARN",
        "HTTP_MAX_CONNECTIONS", connections, "HTTP_MAX_CONNECTIONS_PER_CLIENT", connections));
    // e.g. -XX:StartFlightRecording=filename=target/sse.jfr,settings=profile to see where the broker's time goes
    String brokerOptions = System.getProperty("bench.brokerJavaOptions", "");
    if (!brokerOptions.isBlank()) {
      environment.put("JAVA_TOOL_OPTIONS", brokerOptions);
    }
    try (BrokerProcess broker = BrokerProcess.start(work.resolve("data"), port, environment)) {
      List<JavaProcess> readers = new ArrayList<>();
      try {
        for (int p = 0; p < processes; p++) {
          int share = watchers / processes + (p < watchers % processes ? 1 : 0);
          readers.add(JavaProcess.start("512m", SseWatchers.class, "127.0.0.1", Integer.toString(port),
              Integer.toString(share), RECIPIENT, work.resolve("samples-" + p).toString()));
        }
        int open = 0;
        long[] readersBefore = new long[processes];
        for (int p = 0; p < processes; p++) {
          String[] opened = readers.get(p).awaitLine("open").split(" ");
          open += Integer.parseInt(opened[1]);
          readersBefore[p] = Long.parseLong(opened[2]);
        }
        System.out.printf("%d of %d watch streams open in %d processes%n", open, watchers, processes);
        // Unmeasured first (the watchers count only "fanout" contents), so this is the warm broker's fan-out.
        create(broker.base, "warm-up", warmupChanges, intervalMillis, new Percentiles());
        double brokerBefore = Machine.cpuSeconds(broker.pid());
        Percentiles createLatency = new Percentiles();
        long started = System.nanoTime();
        int createErrors = create(broker.base, "fanout", changes, intervalMillis, createLatency);
        double createSeconds = (System.nanoTime() - started) / 1e9;
        for (JavaProcess reader : readers) {
          reader.send("collect " + changes + " 15000");
        }
        long delivered = 0;
        int complete = 0;
        int fewest = Integer.MAX_VALUE;
        double[] readerCpu = new double[processes];
        for (int p = 0; p < processes; p++) {
          String[] done = readers.get(p).awaitLine("done").split(" ");
          delivered += Long.parseLong(done[1]);
          complete += Integer.parseInt(done[2]);
          fewest = Math.min(fewest, Integer.parseInt(done[3]));
          readerCpu[p] = (Long.parseLong(done[4]) - readersBefore[p]) / 1e9;
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        double brokerCpu = Machine.cpuSeconds(broker.pid()) - brokerBefore;
        Percentiles latency = new Percentiles();
        for (int p = 0; p < processes; p++) {
          try (DataInputStream in = new DataInputStream(Files.newInputStream(work.resolve("samples-" + p)))) {
            latency.readFrom(in);
          }
        }
        long expected = (long) changes * watchers;
        String machine = Machine.describe();
        System.out.printf("%nmachine: %s (load average before the run %s)%n", machine, loadBefore);
        System.out.printf("%d creates %d ms apart in %.2f s (%d failed); %d watch streams in %d processes%n",
            changes, intervalMillis, createSeconds, createErrors, watchers, processes);
        System.out.printf("deliveries: %d expected, %d received; %d of %d streams saw every change (fewest on one: %d)%n",
            expected, delivered, complete, watchers, fewest);
        System.out.printf("create to its 2xx: %s%ncreate to watcher: %s%n", createLatency.summary(), latency.summary());
        System.out.printf("CPU over the %.1f s of creates and deliveries: broker %.2f s (%.0f%% of one core); watcher processes %s%n",
            seconds, brokerCpu, 100 * brokerCpu / seconds, Arrays.toString(readerCpu));
        System.out.printf("broker CPU per delivery: %.1f µs%n", brokerCpu * 1e6 / Math.max(1, delivered));
        String limit = String.format("creates' own p99 %.0f ms (fsync); broker (%.1f µs CPU per delivery, %.0f%% of a core) and %d watcher processes (%.1f CPU-s)"
                + " share %d cores, load average %s", createLatency.millis(99), brokerCpu * 1e6 / Math.max(1, delivered), 100 * brokerCpu / seconds,
            processes, Arrays.stream(readerCpu).sum(), Machine.cores(), Machine.loadAverage());
        System.out.println("limited by: " + limit);
        ResultLine.print(String.format("SSE fan-out, %,d watchers x %d changes: deliveries", watchers, changes),
            String.format("%,d of %,d", delivered, expected), "all", limit);
        ResultLine.print(String.format("SSE fan-out, %,d watchers: create to every watcher", watchers),
            latency.summary(), "p99 < 100 ms", limit);
      } finally {
        readers.forEach(JavaProcess::close);
      }
    }
  }

  /**
   * {@code changes} creates, {@code intervalMillis} apart whatever each takes, each content carrying the
   * nanoTime it was sent at ({@code <content> <n> <nanos>}); returns how many failed.
   */
  private static int create(URI base, String content, int changes, int intervalMillis, Percentiles latency) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
    long next = System.nanoTime();
    for (int i = 0; i < changes; i++) {
      long at = System.nanoTime();
      String body = "{\"recipient\":\"" + RECIPIENT + "\",\"sender\":\"ark://agents/bench\",\"content\":\"" + content + " "
          + i + " " + at + "\"}";
      sent.add(http.sendAsync(HttpRequest.newBuilder(base.resolve("/questions")).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding())
          .whenComplete((response, failure) -> latency.add(System.nanoTime() - at)));
      next += TimeUnit.MILLISECONDS.toNanos(intervalMillis);
      long pause = next - System.nanoTime();
      if (pause > 0) {
        TimeUnit.NANOSECONDS.sleep(pause);
      }
    }
    int failed = 0;
    for (CompletableFuture<HttpResponse<Void>> response : sent) {
      try {
        failed += response.get(30, TimeUnit.SECONDS).statusCode() / 100 == 2 ? 0 : 1;
      } catch (Exception e) {
        failed++;
      }
    }
    return failed;
  }

  private SseFanoutBenchmark() {
  }
}
