package ark.broker.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Every benchmark, one after the other, each in a JVM of its own (which starts the broker and its load
 * generators as processes of their own), and a Markdown table of their {@link ResultLine}s in
 * {@code target/benchmarks.md} with the machine they ran on. {@code -Dbench.quick=true} runs each for a
 * few seconds; every other {@code bench.*} property is passed on. A benchmark whose class is missing is
 * noted and skipped. Run with {@code scripts/bench-all.sh [--quick]}.
 */
public final class BenchAll {
  private static final Path REPORT = Path.of("target/benchmarks.md");
  private static final Path LOGS = Path.of("target/bench-logs");

  /** A benchmark and the properties that make it short in quick mode. */
  private record Bench(String name, Map<String, String> quick) {
  }

  private static final List<Bench> BENCHMARKS = List.of(
      new Bench("ark.broker.bench.CpuBenchmark", Map.of("bench.pairs", "4000", "bench.warmupPairs", "1000",
          "bench.settlingRounds", "1")),
      new Bench("ark.broker.bench.CoreBenchmark", Map.of("bench.seconds", "3", "bench.restartEvents", "100000")),
      new Bench("ark.broker.bench.AnswerLatencyBenchmark", Map.of()),
      new Bench("ark.broker.bench.SseFanoutBenchmark", Map.of()),
      new Bench("ark.broker.bench.WarmupBenchmark", Map.of()),
      new Bench("ark.broker.bench.ReplicaBenchmark", Map.of("bench.pairs", "4000", "bench.warmupPairs", "1000",
          "bench.settlingRounds", "1")));

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("--run")) {
      runToExit(args[1]);
    }
    boolean quick = Boolean.getBoolean("bench.quick");
    String machine = Machine.describe();
    Files.createDirectories(LOGS);
    List<String> rows = new ArrayList<>();
    for (Bench bench : BENCHMARKS) {
      String shortName = bench.name.substring(bench.name.lastIndexOf('.') + 1);
      if (!exists(bench.name)) {
        System.out.println("== " + shortName + ": not in this build, skipped");
        rows.add(row(shortName, "not in this build", "–", "–", "–"));
        continue;
      }
      System.out.println("== " + shortName);
      List<String> results = new ArrayList<>();
      int exit = run(bench, quick, LOGS.resolve(shortName + ".log"), results);
      for (String result : results) {
        String[] fields = result.split("\\|", -1);
        rows.add(row(shortName, fields[1], fields[2], fields[3], fields[4]));
      }
      if (exit != 0 || results.isEmpty()) {
        rows.add(row(shortName, exit == 0 ? "printed no results" : "failed (exit " + exit + ")",
            "see target/bench-logs/" + shortName + ".log", "–", "–"));
      }
    }
    write(quick, machine, rows);
    System.out.println("\nwrote " + REPORT.toAbsolutePath());
    System.out.println(Files.readString(REPORT));
  }

  /**
   * A benchmark's main, then the JVM's end, also when the main throws: the Vert.x and Kafka threads
   * a benchmark leaves behind would otherwise keep its JVM, and this run, waiting.
   */
  // The stack trace on stderr is the failed benchmark's report in its log; the JVM must exit, so nothing can rethrow.
  @SuppressWarnings("CatchAndPrintStackTrace")
  private static void runToExit(String className) {
    try {
      Class.forName(className).getMethod("main", String[].class).invoke(null, (Object) new String[0]);
      System.exit(0);
    } catch (java.lang.reflect.InvocationTargetException e) {
      e.getCause().printStackTrace();
    } catch (ReflectiveOperationException e) {
      e.printStackTrace();
    }
    System.exit(1);
  }

  private static boolean exists(String className) {
    try {
      Class.forName(className, false, Thread.currentThread().getContextClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** Runs one benchmark in its own JVM, copying its output to the console and {@code log}; returns its exit code. */
  private static int run(Bench bench, boolean quick, Path log, List<String> results) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx1g", "-cp", classPath()));
    if (quick) {
      bench.quick.forEach((key, value) -> command.add("-D" + key + "=" + value));
    }
    System.getProperties().stringPropertyNames().stream()
        .filter(key -> key.startsWith("bench.") && !key.equals("bench.main"))
        .forEach(key -> command.add("-D" + key + "=" + System.getProperty(key)));
    command.addAll(List.of(BenchAll.class.getName(), "--run", bench.name));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
         PrintWriter copy = new PrintWriter(Files.newBufferedWriter(log))) {
      for (String line = output.readLine(); line != null; line = output.readLine()) {
        System.out.println(line);
        copy.println(line);
        if (line.startsWith("RESULT|")) {
          results.add(line);
        }
      }
    }
    if (!process.waitFor(quick ? 15 : 90, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      return -1;
    }
    return process.exitValue();
  }

  /** This JVM's class path: Maven's test class path when run by exec:java, else java.class.path. */
  private static String classPath() {
    if (Thread.currentThread().getContextClassLoader() instanceof URLClassLoader loader && loader.getURLs().length > 0) {
      return Arrays.stream(loader.getURLs()).map(BenchAll::file).collect(Collectors.joining(File.pathSeparator));
    }
    return System.getProperty("java.class.path");
  }

  private static String file(URL url) {
    try {
      return Path.of(url.toURI()).toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException(url.toString(), e);
    }
  }

  private static String row(String bench, String figure, String measured, String target, String limit) {
    return "| " + String.join(" | ", bench, figure, measured, target, limit) + " |";
  }

  private static void write(boolean quick, String machine, List<String> rows) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("# Benchmarks");
    lines.add("");
    lines.add("Run " + Instant.now() + " (" + (quick ? "quick mode: a few seconds each, figures are rough" : "full mode")
        + ") on " + machine + ", commit " + commit() + ". Every broker is `java -jar target/ark-broker.jar`"
        + " (fsync on) in its own process; logs in `target/bench-logs/`.");
    lines.add("");
    lines.add("| Benchmark | Figure | Measured | Target | Limited by |");
    lines.add("|---|---|---|---|---|");
    lines.addAll(rows);
    Files.createDirectories(REPORT.getParent());
    Files.write(REPORT, lines);
  }

  private static String commit() {
    try {
      Process git = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").start();
      String commit = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      return git.waitFor() == 0 && !commit.isEmpty() ? commit : "unknown";
    } catch (IOException | InterruptedException e) {
      return "unknown";
    }
  }

  private BenchAll() {
  }
}
