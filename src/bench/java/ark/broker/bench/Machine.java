package ark.broker.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** What a benchmark ran on and what its processes cost, read from /proc, so every figure says what limits it. */
final class Machine {
  private static final long TICKS_PER_SECOND = clockTicksPerSecond();

  private Machine() {
  }

  /** "2 cores (AMD EPYC ...), load average 1.2 0.9 0.8, JDK 17.0.15": one line for a report. */
  static String describe() {
    return String.format("%d cores (%s), load average %s, JDK %s", cores(), cpuModel(), loadAverage(),
        System.getProperty("java.version"));
  }

  static int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
    } catch (IOException e) {
      return "unknown CPU";
    }
  }

  /** CPU-seconds (user + system) a process has used so far; 0 once it is gone. */
  static double cpuSeconds(long pid) {
    String[] fields = stat(pid);
    return fields == null ? 0 : cpuSeconds(fields);
  }

  /** utime + stime of a process's or thread's stat fields (those after its name). */
  private static double cpuSeconds(String[] fields) {
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / (double) TICKS_PER_SECOND;
  }

  /** A process's resident memory now ({@code VmRSS}) and at its peak ({@code VmHWM}), in MiB; -1 once it is gone. */
  static long[] residentMebibytes(long pid) {
    long[] mebibytes = {-1, -1};
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        int at = line.startsWith("VmRSS:") ? 0 : line.startsWith("VmHWM:") ? 1 : -1;
        if (at >= 0) {
          mebibytes[at] = Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
        }
      }
    } catch (IOException e) {
      return mebibytes;
    }
    return mebibytes;
  }

  /** The part of {@link #cpuSeconds} the kernel spent on the process's behalf (sockets, fsync). */
  static double systemSeconds(long pid) {
    String[] fields = stat(pid);
    return fields == null ? 0 : Long.parseLong(fields[12]) / (double) TICKS_PER_SECOND;
  }

  /**
   * CPU-seconds a process's threads have used so far, by what they do: request handling (Vert.x event loops), blocking
   * work (Vert.x worker threads, its own and its internal ones), the JIT compiler, the garbage collector, the log
   * writer, the Kafka client, logging, and the rest. Threads that ended are not counted, so compare two readings of a
   * process whose threads live on.
   */
  static Map<String, Double> cpuSecondsByRole(long pid) {
    Map<String, Double> byRole = new TreeMap<>();
    try (DirectoryStream<Path> threads = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path thread : threads) {
        String stat = Files.readString(thread.resolve("stat"));
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        byRole.merge(role(name), cpuSeconds(fieldsAfterName(stat)), Double::sum);
      }
    } catch (IOException e) {
      // the process, or one of its threads, ended while being read: what was read stands
    }
    return byRole;
  }

  /** The CPU-seconds each role used between two {@link #cpuSecondsByRole} readings, times {@code scale}, largest first. */
  static String describeRoles(Map<String, Double> before, Map<String, Double> after, double scale) {
    return after.entrySet().stream()
        .map(entry -> Map.entry(entry.getKey(), scale * (entry.getValue() - before.getOrDefault(entry.getKey(), 0.0))))
        .filter(entry -> entry.getValue() >= 0.005)
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .map(entry -> String.format("%s %.2f", entry.getKey(), entry.getValue()))
        .collect(Collectors.joining(", "));
  }

  private static String role(String thread) {
    if (thread.startsWith("vert.x-worker") || thread.startsWith("vert.x-interna")) {
      return "workers";
    }
    if (thread.startsWith("vert.x-eventloo")) {
      return "requests";
    }
    if (thread.startsWith("C1 Compiler") || thread.startsWith("C2 Compiler")) {
      return "JIT";
    }
    if (thread.startsWith("GC Thread") || thread.startsWith("G1 ") || thread.equals("VM Thread")) {
      return "GC";
    }
    if (thread.startsWith("ark-broker-log")) {
      return "log writer";
    }
    if (thread.startsWith("kafka-") || thread.startsWith("vert.x-kafka")) {
      return "Kafka client";
    }
    if (thread.startsWith("AsyncAppender")) {
      return "logging";
    }
    return "other";
  }

  static long ticksPerSecond() {
    return TICKS_PER_SECOND;
  }

  /** The fields after the command name in /proc/<pid>/stat (the name may hold spaces), from the state on; null once it is gone. */
  private static String[] stat(long pid) {
    try {
      return fieldsAfterName(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    } catch (IOException e) {
      return null;
    }
  }

  /** A stat line's fields after the command name, from the state on (the name may hold spaces and parentheses). */
  private static String[] fieldsAfterName(String stat) {
    return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
  }

  /** {@code getconf CLK_TCK}; 100, Linux's usual value, when that cannot be asked. */
  private static long clockTicksPerSecond() {
    try {
      Process getconf = new ProcessBuilder("getconf", "CLK_TCK").start();
      String answer = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      getconf.waitFor(5, TimeUnit.SECONDS);
      return Long.parseLong(answer);
    } catch (IOException | InterruptedException | NumberFormatException e) {
      return 100;
    }
  }
}
