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
 * {@link SseWatchers} processes, then rounds of {@code -Dbench.changes=200} creates, each round at its own pace
 * ({@code -Dbench.intervalsMillis=200,100,50,20} apart: 5 to 50 changes a second, 50,000 to 500,000 deliveries a
 * second with 10,000 watchers), after an unmeasured warm-up round; every stream must see every change, timed from
 * the create's {@link System#nanoTime} (put in its content) to its arrival. The broker is the jar ({@code java -jar}, fsync on) with its HTTP
 * connection bounds raised for this run only ({@code -Dbench.brokerJavaOptions} adds JVM options, e.g. a
 * flight recording); {@code -Dbench.peerCommand} measures another server (Ark's own) in its place, the same way
 * ({@link PeerProcess}). Run with
 * {@code mvn -o -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.SseFanoutBenchmark}.
 */
public final class SseFanoutBenchmark {
  private static final String RECIPIENT = "ark://users/fanout";
  private static final int SETTLE_SECONDS = 10;

  public static void main(String[] args) throws Exception {
    boolean quick = Boolean.getBoolean("bench.quick");
    int processes = Integer.getInteger("bench.watcherProcesses", 4);
    int watchers = Integer.getInteger("bench.watchers", quick ? 2_000 : 10_000);
    int changes = Integer.getInteger("bench.changes", quick ? 50 : 200);
    List<Integer> intervals = Arrays.stream(System.getProperty("bench.intervalsMillis", "200,100,50,20").split(","))
        .map(String::trim).map(Integer::valueOf).toList();
    if (intervals.size() >= SseWatchers.ROUNDS) {
      throw new IllegalArgumentException("at most " + (SseWatchers.ROUNDS - 1) + " paces in one run");
    }
    int warmupChanges = Integer.getInteger("bench.warmupChanges", quick ? 50 : 200);
    Path work = Files.createTempDirectory("ark-bench-sse");
    int port = BrokerProcess.freePort();
    String connections = Integer.toString(watchers + 1_000);
    Map<String, String> environment = new HashMap<>(Map.of("LOG_LEVEL", "WARN",
        "HTTP_MAX_CONNECTIONS", connections, "HTTP_MAX_CONNECTIONS_PER_CLIENT", connections));
    // The broker's start-up warm-up (warmUp.seconds) is off in process tests; the shipped default is 5 s.
    String warmUp = System.getProperty("bench.brokerWarmUpSeconds");
    if (warmUp != null) {
      environment.put("WARM_UP_SECONDS", warmUp);
    }
    // e.g. -XX:StartFlightRecording=filename=target/sse.jfr,settings=profile to see where the broker's time goes
    BrokerJavaOptions.addTo(environment);
    List<String> peerCommand = PeerProcess.commandFromProperties();
    try (MeasuredServer server = peerCommand == null
        ? MeasuredServer.of(BrokerProcess.start(work.resolve("data"), port, environment))
        : MeasuredServer.of(PeerProcess.start(peerCommand, port, work.resolve("peer.log")), peerCommand)) {
      System.out.printf("measuring %s%n", server.name());
      double brokerAtReady = Machine.cpuSeconds(server.pid());
      Map<String, Double> rolesAtReady = Machine.cpuSecondsByRole(server.pid());
      long delivered = 0;
      List<JavaProcess> readers = new ArrayList<>();
      try {
        for (int p = 0; p < processes; p++) {
          int share = watchers / processes + (p < watchers % processes ? 1 : 0);
          readers.add(JavaProcess.start("512m", SseWatchers.class, "127.0.0.1", Integer.toString(port),
              Integer.toString(share), RECIPIENT, work.resolve("samples-" + p).toString()));
        }
        int open = 0;
        long[] readerCpu = new long[processes];
        for (int p = 0; p < processes; p++) {
          String[] opened = readers.get(p).awaitLine("open").split(" ");
          open += Integer.parseInt(opened[1]);
          readerCpu[p] = Long.parseLong(opened[2]);
        }
        System.out.printf("%d of %d watch streams open in %d processes%n", open, watchers, processes);
        // Round 0 goes unmeasured, so the rounds after it see the warm broker's fan-out.
        if (warmupChanges > 0) {
          create(server.base(), 0, warmupChanges, intervals.stream().min(Integer::compare).orElseThrow(),
              new Percentiles());
          delivered += collect(readers, work, 0, warmupChanges).delivered;
        }
        for (int round = 1; round <= intervals.size(); round++) {
          int intervalMillis = intervals.get(round - 1);
          long[] readersBefore = readerCpu.clone();
          double brokerBefore = Machine.cpuSeconds(server.pid());
          double brokerKernelBefore = Machine.systemSeconds(server.pid());
          Percentiles createLatency = new Percentiles();
          long started = System.nanoTime();
          int createErrors = create(server.base(), round, changes, intervalMillis, createLatency);
          double createSeconds = (System.nanoTime() - started) / 1e9;
          Collected collected = collect(readers, work, round, changes);
          double seconds = (System.nanoTime() - started) / 1e9;
          double brokerCpu = Machine.cpuSeconds(server.pid()) - brokerBefore;
          double brokerKernel = Machine.systemSeconds(server.pid()) - brokerKernelBefore;
          double watcherCpu = 0;
          for (int p = 0; p < processes; p++) {
            readerCpu[p] = collected.cpuNanos[p];
            watcherCpu += (readerCpu[p] - readersBefore[p]) / 1e9;
          }
          delivered += collected.delivered;
          long expected = (long) changes * watchers;
          double microsPerDelivery = brokerCpu * 1e6 / Math.max(1, collected.delivered);
          int perSecond = 1000 / intervalMillis;
          System.out.printf("%nround %d: %d creates %d ms apart (%d/s, %,d deliveries/s) in %.2f s (%d failed); machine: %s%n",
              round, changes, intervalMillis, perSecond, perSecond * watchers, createSeconds, createErrors, Machine.describe());
          System.out.printf("deliveries: %d expected, %d received; %d of %d streams saw every change (fewest on one: %d)%n",
              expected, collected.delivered, collected.complete, watchers, collected.fewest);
          System.out.printf("create to its 2xx: %s%ncreate to watcher: %s%n", createLatency.summary(), collected.latency.summary());
          System.out.printf("CPU over the %.1f s of creates and deliveries: broker %.2f s (%.0f%% of one core, %.1f µs per delivery);"
              + " %d watcher processes %.2f s%n", seconds, brokerCpu, 100 * brokerCpu / seconds,
              microsPerDelivery, processes, watcherCpu);
          String limit = String.format("broker %.1f µs CPU per delivery (%.1f in the kernel; %.0f%% of a core), %d watcher processes"
                  + " %.0f%% of a core, creates' own p99 %.0f ms (fsync); %d cores, load average %s",
              microsPerDelivery, brokerKernel * 1e6 / Math.max(1, collected.delivered),
              100 * brokerCpu / seconds, processes, 100 * watcherCpu / seconds, createLatency.millis(99), Machine.cores(),
              Machine.loadAverage());
          String what = String.format("SSE fan-out%s, %,d watchers, %d changes/s (%,d deliveries/s)", server.label(),
              watchers, perSecond, perSecond * watchers);
          ResultLine.print(what + ": create to every watcher", String.format("%,d of %,d delivered; %s", collected.delivered,
              expected, collected.latency.summary()), "all, p99 < 100 ms", limit);
        }
        wholeRun(server, brokerAtReady, rolesAtReady, delivered, watchers, warmupChanges);
      } finally {
        readers.forEach(JavaProcess::close);
      }
    }
  }

  /**
   * The broker's CPU per delivery over the whole run since it was ready (the watchers' connects, every round, the
   * warm-up round if any: with {@code -Dbench.warmupChanges=0} a cold broker's figure) and its resident memory.
   */
  private static void wholeRun(MeasuredServer server, double cpuAtReady, Map<String, Double> rolesAtReady,
                               long delivered, int watchers, int warmupChanges) {
    long pid = server.pid();
    double sinceReady = Machine.cpuSeconds(pid) - cpuAtReady;
    String roles = Machine.describeRoles(rolesAtReady, Machine.cpuSecondsByRole(pid), 1);
    long[] resident = Machine.residentMebibytes(pid);
    long settled = settledResidentMebibytes(pid);
    String value = String.format("%.1f µs of broker CPU per delivery since ready (%,d deliveries, %.2f CPU-s; %.2f CPU-s "
        + "since its start); RSS %d MiB, %d MiB %d s later with the watchers still connected, peak %d MiB",
        sinceReady * 1e6 / Math.max(1, delivered), delivered, sinceReady, Machine.cpuSeconds(pid), resident[0], settled,
        SETTLE_SECONDS, resident[1]);
    System.out.printf("%nwhole run: %s; broker CPU-s by thread since ready: %s%n", value, roles);
    ResultLine.print(String.format("SSE fan-out%s, %,d watchers, whole run (%s)", server.label(), watchers,
        warmupChanges == 0 ? "cold: connects and the first changes included" : "connects and a warm-up round included"),
        value, "", "broker CPU-s by thread: " + roles + "; " + server.name() + "; " + Machine.describe());
  }

  /**
   * The broker's resident memory once it has been idle for {@link #SETTLE_SECONDS}: the JIT compiles for a while after
   * the last change and the JVM hands its compilers' memory back to the system in its own time (every 5 s at most).
   */
  private static long settledResidentMebibytes(long pid) {
    try {
      TimeUnit.SECONDS.sleep(SETTLE_SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Machine.residentMebibytes(pid)[0];
  }

  /**
   * {@code changes} creates, {@code intervalMillis} apart whatever each takes, each content carrying its round and
   * the nanoTime it was sent at ({@code fanout <round> <n> <nanos>}); returns how many failed.
   */
  private static int create(URI base, int round, int changes, int intervalMillis, Percentiles latency) throws Exception {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
    long next = System.nanoTime();
    for (int i = 0; i < changes; i++) {
      long at = System.nanoTime();
      String body = "{\"recipient\":\"" + RECIPIENT + "\",\"sender\":\"ark://agents/bench\",\"content\":\"fanout " + round + " "
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

  /** The server under measurement: the broker, or the peer of {@code -Dbench.peerCommand}. */
  private record MeasuredServer(String name, URI base, long pid, AutoCloseable process) implements AutoCloseable {
    static MeasuredServer of(BrokerProcess broker) {
      return new MeasuredServer("the broker, started with -Xmx1g", broker.base, broker.pid(), broker);
    }

    static MeasuredServer of(PeerProcess peer, List<String> command) {
      return new MeasuredServer("the peer: " + String.join(" ", command), peer.base, peer.pid(), peer);
    }

    /** Empty for the broker, so its result lines read as before. */
    String label() {
      return process instanceof PeerProcess ? " (peer)" : "";
    }

    @Override
    public void close() throws Exception {
      process.close();
    }
  }

  record Collected(long delivered, int complete, int fewest, long[] cpuNanos, Percentiles latency) {
  }

  /** Waits until every watcher process has every change of {@code round} (or 15 s), and merges what they saw. */
  private static Collected collect(List<JavaProcess> readers, Path work, int round, int changes) throws Exception {
    for (JavaProcess reader : readers) {
      reader.send("collect " + round + " " + changes + " 15000");
    }
    long delivered = 0;
    int complete = 0;
    int fewest = Integer.MAX_VALUE;
    long[] cpuNanos = new long[readers.size()];
    Percentiles latency = new Percentiles();
    for (int p = 0; p < readers.size(); p++) {
      String[] done = readers.get(p).awaitLine("done").split(" ");
      delivered += Long.parseLong(done[1]);
      complete += Integer.parseInt(done[2]);
      fewest = Math.min(fewest, Integer.parseInt(done[3]));
      cpuNanos[p] = Long.parseLong(done[4]);
      try (DataInputStream in = new DataInputStream(Files.newInputStream(work.resolve("samples-" + p + "-" + round)))) {
        latency.readFrom(in);
      }
    }
    return new Collected(delivered, complete, fewest, cpuNanos, latency);
  }

  private SseFanoutBenchmark() {
  }
}
