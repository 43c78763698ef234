package ark.broker.bench;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link LoadGenerator} processes against one broker: each warms up with its own pairs, then all run their
 * measured pairs together when told to. Being processes of their own, their CPU is not the broker's and is
 * read apart ({@link #cpuSeconds()}).
 */
final class OutsideLoad implements AutoCloseable {
  private static final Path TEST_CLASSES = Path.of("target/test-classes");
  private static final Path JAR = Path.of("target/ark-broker.jar");

  /** The measured pairs: how many, in how long, how many failed, and the latency of each half. */
  record Measured(int pairs, double seconds, long errors, Percentiles creates, Percentiles answers) {
    double pairsPerSecond() {
      return pairs / seconds;
    }
  }

  private final List<Generator> generators;
  private final int measuredPairs;
  private final long started = System.nanoTime();

  private OutsideLoad(List<Generator> generators, int measuredPairs) {
    this.generators = generators;
    this.measuredPairs = measuredPairs;
  }

  /**
   * Starts {@code generators} processes of {@code clients} loops each, taking turns over {@code ports} (the brokers);
   * each warms up with {@code warmupPairs} and then measures {@code pairs / generators}.
   */
  static OutsideLoad start(List<Integer> ports, int generators, int clients, int warmupPairs, int pairs, Path work)
      throws IOException {
    Files.createDirectories(work);
    List<Generator> started = new ArrayList<>();
    for (int g = 0; g < generators; g++) {
      started.add(Generator.start(ports.get(g % ports.size()), clients, warmupPairs, pairs / generators,
          work.resolve("samples-" + g)));
    }
    return new OutsideLoad(started, pairs / generators * generators);
  }

  /** Waits until every generator has done its warm-up pairs; returns the seconds since they started. */
  double awaitWarm() throws IOException {
    for (Generator generator : generators) {
      generator.awaitLine("warm");
    }
    return (System.nanoTime() - started) / 1e9;
  }

  /** Runs the measured pairs on every generator at once, once all are warm. */
  Measured measure() throws IOException {
    long begun = System.nanoTime();
    for (Generator generator : generators) {
      generator.go();
    }
    long errors = 0;
    for (Generator generator : generators) {
      errors += Long.parseLong(generator.awaitLine("done").split(" ")[2]);
    }
    double seconds = (System.nanoTime() - begun) / 1e9;
    Percentiles creates = new Percentiles();
    Percentiles answers = new Percentiles();
    for (Generator generator : generators) {
      try (DataInputStream in = new DataInputStream(Files.newInputStream(generator.samples))) {
        creates.readFrom(in);
        answers.readFrom(in);
      }
    }
    return new Measured(measuredPairs, seconds, errors, creates, answers);
  }

  /**
   * Runs rounds of the measured pairs until, in a round, the JIT compilers of {@code processes} took at most a tenth
   * of those processes' CPU, or {@code maxRounds} ran: a fixed warm-up ends too early where there is more code to
   * compile (a broker with the Kafka client, Kafka itself) and the compiler threads wait for CPU like everyone else.
   * Prints each round; returns how many ran.
   */
  int settle(List<Long> processes, int maxRounds) throws IOException {
    for (int round = 1; round <= maxRounds; round++) {
      double[] before = cpuAndJitSeconds(processes);
      Measured measured = measure();
      double[] after = cpuAndJitSeconds(processes);
      double used = after[0] - before[0];
      double jit = after[1] - before[1];
      System.out.printf("  settling round %d: %.0f pairs/s, JIT %.0f%% of the measured processes' CPU%n", round,
          measured.pairsPerSecond(), 100 * jit / used);
      if (jit <= used / 10) {
        return round;
      }
    }
    return maxRounds;
  }

  /** The CPU-seconds {@code processes} have used so far, and the part of it their JIT compilers used. */
  private static double[] cpuAndJitSeconds(List<Long> processes) {
    double cpu = 0;
    double jit = 0;
    for (long pid : processes) {
      cpu += Machine.cpuSeconds(pid);
      jit += Machine.cpuSecondsByRole(pid).getOrDefault("JIT", 0.0);
    }
    return new double[] {cpu, jit};
  }

  /** The CPU the generator processes have used so far. */
  double cpuSeconds() {
    return generators.stream().mapToDouble(generator -> Machine.cpuSeconds(generator.process.pid())).sum();
  }

  @Override
  public void close() {
    generators.forEach(generator -> generator.process.destroy());
  }

  /** One {@link LoadGenerator} process and its stdout. */
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
          new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), samples);
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
}
