package ark.broker.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The CPU the processes under test (any broker: a JVM, Node) and this process used over a measured window, read
 * from /proc, and what that says limits a figure: one saturated thread (Node's event loop), both cores, or neither
 * (the clients wait on latency: fsync, locks, a request per round trip).
 */
final class ProcessCpu {
  private final List<Long> brokers;
  private final long self = ProcessHandle.current().pid();
  private final long started = System.nanoTime();
  private final double brokersAtStart;
  private final double selfAtStart;
  private final Map<String, Double> threadsAtStart;
  private final long[] machineAtStart;

  /** A reading of the window's start. */
  ProcessCpu(List<Long> brokers) {
    this.brokers = brokers;
    this.brokersAtStart = brokersCpu();
    this.selfAtStart = Machine.cpuSeconds(self);
    this.threadsAtStart = threads();
    this.machineAtStart = machineTicks();
  }

  /** The window's end: what the broker(s) and this generator used since the start. */
  Used used() {
    double seconds = (System.nanoTime() - started) / 1e9;
    Map<String, Double> threads = threads();
    String busiest = "";
    double busiestSeconds = 0;
    for (Map.Entry<String, Double> thread : threads.entrySet()) {
      double used = thread.getValue() - threadsAtStart.getOrDefault(thread.getKey(), 0.0);
      if (used > busiestSeconds) {
        busiestSeconds = used;
        busiest = thread.getKey().substring(thread.getKey().indexOf(' ') + 1);
      }
    }
    long[] machine = machineTicks();
    double machineBusy = (machine[0] - machineAtStart[0]) / (double) Math.max(1, machine[1] - machineAtStart[1]);
    return new Used(seconds, brokers.isEmpty() ? Double.NaN : brokersCpu() - brokersAtStart,
        Machine.cpuSeconds(self) - selfAtStart, busiest, busiestSeconds, machineBusy);
  }

  /**
   * CPU-seconds over a window of {@code seconds}: the brokers' (NaN when no pid was given), this process's, the
   * brokers' busiest thread's; and the share of the machine's CPU time that was busy, whoever used it.
   */
  record Used(double seconds, double broker, double generator, String busiestThread, double busiestThreadSeconds,
              double machineBusy) {
    /** "0.31 CPU-s" per 1,000 of {@code operations}, or "unknown" without a broker pid. */
    String brokerPerThousand(long operations) {
      return Double.isNaN(broker) ? "unknown (no --pid)" : String.format("%.3f CPU-s", 1000 * broker / operations);
    }

    /** What limits the figure, from where the CPU went, with the numbers that say so. */
    String limit(int clients) {
      String load = String.format("broker %.0f%% of a core (busiest thread '%s' %.0f%%), generator %.0f%%; %d cores"
              + " %.0f%% busy, load average %s", 100 * broker / seconds, busiestThread,
          100 * busiestThreadSeconds / seconds, 100 * generator / seconds, Machine.cores(), 100 * machineBusy,
          Machine.loadAverage());
      if (Double.isNaN(broker)) {
        return "unknown without the broker's pid; generator " + String.format("%.0f%% of a core", 100 * generator / seconds);
      }
      if (busiestThreadSeconds / seconds >= 0.85) {
        return "one saturated broker thread ('" + busiestThread + "'): " + load;
      }
      if ((broker + generator) / seconds >= 0.85 * Machine.cores()) {
        return "the cores, shared by broker and generator: " + load;
      }
      if (machineBusy >= 0.85) {
        return "the cores, busy with other processes too: " + load;
      }
      return "neither a thread nor the cores are saturated: latency, " + clients + " clients each waiting for its"
          + " answer (I/O, fsync, round trips): " + load;
    }
  }

  /** The machine's busy and total CPU ticks so far (/proc/stat; idle and I/O wait are not busy). */
  private static long[] machineTicks() {
    try {
      String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long total = 0;
      for (int i = 1; i <= 8 && i < fields.length; i++) { // user .. steal; guest time is already in user
        total += Long.parseLong(fields[i]);
      }
      return new long[] {total - Long.parseLong(fields[4]) - Long.parseLong(fields[5]), total};
    } catch (IOException | RuntimeException unreadable) {
      return new long[] {0, 0};
    }
  }

  private double brokersCpu() {
    return brokers.stream().mapToDouble(Machine::cpuSeconds).sum();
  }

  /** Every thread of the brokers by "pid/tid name", with its CPU-seconds so far. */
  private Map<String, Double> threads() {
    Map<String, Double> threads = new HashMap<>();
    for (long pid : brokers) {
      try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
        for (Path task : tasks) {
          String stat = Files.readString(task.resolve("stat"));
          String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
          String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          double seconds = (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / (double) Machine.ticksPerSecond();
          threads.put(pid + "/" + task.getFileName() + " " + name, seconds);
        }
      } catch (IOException gone) {
        // a thread ended while being read: what was read stands
      }
    }
    return threads;
  }
}
