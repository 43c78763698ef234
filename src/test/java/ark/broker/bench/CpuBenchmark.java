package ark.broker.bench;

import ark.broker.testing.BrokerProcess;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The broker's CPU per operation: CPU-seconds its process spends per 10,000 REST create+answer pairs,
 * read from {@code /proc/<pid>/stat}, with the broker as users run it ({@code java -jar}, default
 * configuration, fsync on) and the load from {@link LoadGenerator} processes of their own. Run with
 * {@code mvn -o -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.CpuBenchmark}; tune with
 * {@code -Dbench.generators=2 -Dbench.clients=16 -Dbench.pairs=20000 -Dbench.warmupPairs=5000}.
 */
public final class CpuBenchmark {
  private static final Path TEST_CLASSES = Path.of("target/test-classes");
  private static final Path JAR = Path.of("target/ark-broker.jar");

  public static void main(String[] args) throws Exception {
    int generators = Integer.getInteger("bench.generators", 2);
    int clients = Integer.getInteger("bench.clients", 16);
    int pairs = Integer.getInteger("bench.pairs", 20_000);
    int warmupPairs = Integer.getInteger("bench.warmupPairs", 5_000);
    long ticksPerSecond = clockTicksPerSecond();
    String loadBeforeRun = loadAverage();
    Path work = Files.createTempDirectory("ark-bench-cpu");
    int port = BrokerProcess.freePort();
    // BrokerProcess quiets the access log for tests; this measures the broker as it is configured out of the box.
    try (BrokerProcess broker = BrokerProcess.start(work.resolve("data"), port,
        Map.of("LOG_LEVEL", "INFO", "ACCESS_LOG_LEVEL", "INFO"))) {
      List<Generator> load = new ArrayList<>();
      try {
        for (int g = 0; g < generators; g++) {
          load.add(Generator.start(port, clients, warmupPairs, pairs / generators, work.resolve("samples-" + g)));
        }
        for (Generator generator : load) {
          generator.awaitLine("warm");
        }
        long brokerBefore = cpuTicks(broker.pid());
        long brokerSystemBefore = systemTicks(broker.pid());
        long loadBefore = 0;
        for (Generator generator : load) {
          loadBefore += cpuTicks(generator.process.pid());
        }
        long started = System.nanoTime();
        for (Generator generator : load) {
          generator.go();
        }
        long errors = 0;
        for (Generator generator : load) {
          errors += Long.parseLong(generator.awaitLine("done").split(" ")[2]);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        double brokerCpu = (cpuTicks(broker.pid()) - brokerBefore) / (double) ticksPerSecond;
        double brokerSystem = (systemTicks(broker.pid()) - brokerSystemBefore) / (double) ticksPerSecond;
        long loadAfter = 0;
        for (Generator generator : load) {
          loadAfter += cpuTicks(generator.process.pid());
        }
        double loadCpu = (loadAfter - loadBefore) / (double) ticksPerSecond;
        Percentiles creates = new Percentiles();
        Percentiles answers = new Percentiles();
        for (Generator generator : load) {
          try (DataInputStream in = new DataInputStream(Files.newInputStream(generator.samples))) {
            creates.readFrom(in);
            answers.readFrom(in);
          }
        }
        int done = pairs / generators * generators;
        System.out.printf("%nmachine: %d cores (%s), load average before the run %s%n",
            Runtime.getRuntime().availableProcessors(), cpuModel(), loadBeforeRun);
        System.out.printf("broker: java -jar, default config (fsync on, access log as configured by default), %s%n",
            "CPU from /proc/<pid>/stat utime+stime at " + ticksPerSecond + " ticks/s");
        System.out.printf("load: %d generator processes x %d clients, each client creating a question and then answering it%n",
            generators, clients);
        System.out.printf("%d create+answer pairs in %.2f s: %.0f pairs/s (%.0f requests/s), %d errors%n",
            done, seconds, done / seconds, 2 * done / seconds, errors);
        System.out.printf("broker CPU: %.2f s (%.2f s of it in the kernel: sockets, fsync), %.2f CPU-seconds per 10,000"
            + " pairs (%.0f%% of one core)%n", brokerCpu, brokerSystem, brokerCpu * 10_000 / done, 100 * brokerCpu / seconds);
        System.out.printf("generators' CPU: %.2f s, %.2f CPU-seconds per 10,000 pairs%n", loadCpu, loadCpu * 10_000 / done);
        System.out.printf("create  %s%nanswer  %s%n", creates.summary(), answers.summary());
        System.out.println("limited by: the broker and the generators sharing these cores (and anything else running),"
            + " and an fsync per write");
      } finally {
        for (Generator generator : load) {
          generator.process.destroy();
        }
      }
    }
  }

  /** A {@link LoadGenerator} process and its stdout. */
  private record Generator(Process process, BufferedReader output, Writer input, Path samples) {
    static Generator start(int port, int clients, int warmupPairs, int pairs, Path samples) throws IOException {
      Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx256m", "-cp", TEST_CLASSES + java.io.File.pathSeparator + JAR, LoadGenerator.class.getName(),
          "127.0.0.1", Integer.toString(port), Integer.toString(clients), Integer.toString(warmupPairs),
          Integer.toString(pairs), samples.toString())
          .redirectError(ProcessBuilder.Redirect.INHERIT)
          .start();
      return new Generator(process,
          new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)),
          new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), samples);
    }

    /** The first line of output starting with {@code word}. */
    String awaitLine(String word) throws IOException {
      for (String line = output.readLine(); line != null; line = output.readLine()) {
        if (line.startsWith(word)) {
          return line;
        }
      }
      throw new IllegalStateException("load generator ended before saying '" + word + "'");
    }

    void go() throws IOException {
      input.write("go\n");
      input.flush();
    }
  }

  /** utime + stime of a process, in clock ticks. */
  static long cpuTicks(long pid) throws IOException {
    String[] fields = stat(pid);
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  /** stime alone: the time the kernel spent on the process's behalf. */
  static long systemTicks(long pid) throws IOException {
    return Long.parseLong(stat(pid)[12]);
  }

  /** The fields after the command name in /proc/<pid>/stat (the name may hold spaces), from the state on. */
  private static String[] stat(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
  }

  /** {@code getconf CLK_TCK}; 100, Linux's usual value, when that cannot be asked. */
  static long clockTicksPerSecond() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").start();
      String answer = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      getconf.waitFor(5, TimeUnit.SECONDS);
      return Long.parseLong(answer);
    } catch (IOException | InterruptedException | NumberFormatException e) {
      System.out.println("getconf CLK_TCK unavailable (" + e.getMessage() + "); assuming 100 ticks per second");
      return 100;
    }
  }

  static String loadAverage() throws IOException {
    String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
    return parts[0] + " " + parts[1] + " " + parts[2];
  }

  static String cpuModel() throws IOException {
    return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
        .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
  }

  private CpuBenchmark() {
  }
}
