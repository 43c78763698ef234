package ark.broker.bench;

import ark.broker.ConfigLoader;
import ark.broker.testing.BrokerProcess;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Warm-up: REST create+answer pairs per second in the first 10 s after a fresh broker process is ready,
 * against a later 10 s window of the same run, from a {@link WindowedLoad} process that was itself
 * warmed on a throwaway broker first. Each variant is a fresh {@code java -jar} (fsync on): without the broker's
 * start-up warm-up ({@code warmUp.seconds} 0), as shipped (its default), and as shipped with an AppCDS archive made by
 * a training run ({@code -XX:ArchiveClassesAtExit}, then {@code -XX:SharedArchiveFile}). Run with
 * {@code mvn -o -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.WarmupBenchmark}; tune with
 * {@code -Dbench.runSeconds=60 -Dbench.clients=16 -Dbench.rounds=1}; {@code -Dbench.extraJavaOptions=-XX:TieredStopAtLevel=1}
 * adds a variant with the archive and those JVM options.
 */
public final class WarmupBenchmark {
  private static final int WINDOW = 10;

  public static void main(String[] args) throws Exception {
    boolean quick = Boolean.getBoolean("bench.quick");
    int runSeconds = Integer.getInteger("bench.runSeconds", quick ? 30 : 60);
    int clients = Integer.getInteger("bench.clients", 16);
    int rounds = Integer.getInteger("bench.rounds", 1);
    Path work = Files.createTempDirectory("ark-bench-warmup");
    Path archive = work.resolve("ark-broker.jsa");
    try (JavaProcess load = JavaProcess.start("256m", WindowedLoad.class, "127.0.0.1", Integer.toString(clients))) {
      // The training run makes the archive and warms the generator's JVM.
      Map<String, String> asShipped = Map.of("WARM_UP_SECONDS", Integer.toString(
          ConfigLoader.bundledDefaults().getJsonObject("warmUp").getInteger("seconds")));
      double trained = run(load, work.resolve("train"), with(asShipped, "JAVA_TOOL_OPTIONS",
          "-XX:ArchiveClassesAtExit=" + archive), quick ? 10 : 20).readySeconds;
      System.out.printf("training run (ready in %.2f s) wrote %s: %s%n", trained, archive,
          Files.exists(archive) ? Files.size(archive) / 1024 + " KiB" : "NO ARCHIVE");
      Map<String, Map<String, String>> variants = new LinkedHashMap<>();
      variants.put("no warm-up", Map.of("WARM_UP_SECONDS", "0"));
      variants.put("as shipped", asShipped);
      if (Files.exists(archive)) {
        variants.put("as shipped, AppCDS archive", with(asShipped, "JAVA_TOOL_OPTIONS", "-XX:SharedArchiveFile=" + archive));
        String extra = System.getProperty("bench.extraJavaOptions", "");
        if (!extra.isBlank()) {
          variants.put("as shipped, AppCDS archive, " + extra,
              with(asShipped, "JAVA_TOOL_OPTIONS", "-XX:SharedArchiveFile=" + archive + " " + extra));
        }
      }
      for (int round = 1; round <= rounds; round++) {
        int index = 0;
        for (Map.Entry<String, Map<String, String>> variant : variants.entrySet()) {
          Run cold = run(load, work.resolve("round-" + round + "-" + index++), variant.getValue(), runSeconds);
          cold.report(variant.getKey(), runSeconds);
        }
      }
    }
  }

  private static Map<String, String> with(Map<String, String> environment, String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(environment);
    more.put(name, value);
    return more;
  }

  /** One fresh broker driven for {@code seconds} from the moment it is ready. */
  private record Run(double openSeconds, double readySeconds, int[] perSecond, long errors, double cpuFirst,
                     double cpuLast) {

    double first() {
      return Arrays.stream(perSecond, 0, WINDOW).sum() / (double) WINDOW;
    }

    double last() {
      return Arrays.stream(perSecond, perSecond.length - WINDOW, perSecond.length).sum() / (double) WINDOW;
    }

    void report(String variant, int seconds) {
      String limit = String.format("fresh JVM, JIT warming; broker and generator share %d cores (load average %s)",
          Machine.cores(), Machine.loadAverage());
      System.out.printf("%n%s: ports open (/livez 200) %.2f s and ready %.2f s after launch; pairs/s by second: %s"
          + " (%d errors)%n", variant, openSeconds, readySeconds, Arrays.toString(perSecond), errors);
      System.out.printf("%s: first %d s %.0f pairs/s (broker %.2f CPU-s per 1,000 pairs), seconds %d-%d %.0f pairs/s"
              + " (%.2f CPU-s per 1,000 pairs): first/later %.2f%n", variant, WINDOW, first(), 1000 * cpuFirst / (first() * WINDOW),
          seconds - WINDOW, seconds, last(), 1000 * cpuLast / (last() * WINDOW), first() / last());
      System.out.println("machine: " + Machine.describe());
      ResultLine.print("Warm-up (" + variant + "): process start to ports open (/livez 200, /readyz 503)",
          String.format("%.2f s", openSeconds), "< 2 s", limit);
      ResultLine.print("Warm-up (" + variant + "): process start to ready", String.format("%.2f s", readySeconds), "–", limit);
      ResultLine.print("Warm-up (" + variant + "): first 10 s / seconds " + (seconds - WINDOW) + "-" + seconds,
          String.format("%.0f / %.0f pairs/s = %.2f", first(), last(), first() / last()), "≥ 0.50", limit);
    }
  }

  private static Run run(JavaProcess load, Path dir, Map<String, String> environment, int seconds)
      throws Exception {
    int port = BrokerProcess.freePort();
    long launched = System.nanoTime();
    Map<String, String> env = new LinkedHashMap<>(environment);
    env.put("LOG_LEVEL", "WARN");
    try (BrokerProcess broker = BrokerProcess.launch(dir, port, env)) {
      awaitOpen(broker);
      double open = (System.nanoTime() - launched) / 1e9;
      broker.awaitReady(Duration.ofSeconds(60));
      double ready = (System.nanoTime() - launched) / 1e9;
      long started = System.nanoTime();
      double cpuAtStart = Machine.cpuSeconds(broker.pid());
      load.send("run " + port + " " + seconds);
      double cpuFirst = cpuAfter(broker, started, WINDOW) - cpuAtStart;
      double cpuBeforeLast = Machine.cpuSeconds(broker.pid());
      if (seconds > 2 * WINDOW) {
        cpuBeforeLast = cpuAfter(broker, started, seconds - WINDOW);
      }
      double cpuLast = cpuAfter(broker, started, seconds) - cpuBeforeLast;
      String[] done = load.awaitLine("done").split(" ");
      int[] perSecond = Arrays.stream(done[2].split(",")).mapToInt(Integer::parseInt).toArray();
      stopAndAwaitExit(broker);
      return new Run(open, ready, perSecond, Long.parseLong(done[1]), cpuFirst, cpuLast);
    }
  }

  /** Polls {@code /livez} until the port answers it (200 while the broker warms up too). */
  private static void awaitOpen(BrokerProcess broker) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (http.send(HttpRequest.newBuilder(broker.base.resolve("/livez")).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException notListeningYet) {
        // keep polling
      }
      Thread.sleep(10);
    }
    throw new IllegalStateException("the broker's port did not open within 60 s:\n" + broker.output());
  }

  /** SIGTERM, then as long as the JVM takes to exit: with {@code -XX:ArchiveClassesAtExit} it writes the archive first. */
  private static void stopAndAwaitExit(BrokerProcess broker) throws Exception {
    ProcessHandle process = ProcessHandle.of(broker.pid()).orElseThrow();
    process.destroy();
    process.onExit().get(5, java.util.concurrent.TimeUnit.MINUTES);
  }

  /** The broker's CPU-seconds so far, read once {@code seconds} have passed since {@code started}. */
  private static double cpuAfter(BrokerProcess broker, long started, int seconds) throws InterruptedException {
    long wait = started + Duration.ofSeconds(seconds).toNanos() - System.nanoTime();
    if (wait > 0) {
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
    return Machine.cpuSeconds(broker.pid());
  }

  private WarmupBenchmark() {
  }
}
