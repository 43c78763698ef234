package ark.broker.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A CPU limit for one process, enforced as Kubernetes enforces a container's {@code resources.limits.cpu}: a cgroup
 * of its own with a CFS quota of {@code cpus} of a core in every period. The JVM started in it sees the limit, as it
 * would in a pod (one processor, so two event loops and the serial collector). A benchmark uses it to give each
 * replica a machine's worth of CPU of its own on one shared machine. The period is 10 ms, not Kubernetes' 100 ms:
 * under a 100 ms period a process runs at full speed until its quota is spent and then stands still for the rest of
 * the period, so requests pile up and are served in bursts, and every process around it (Kafka, the generators)
 * sees bursts too; a short period is nearer to what the limit stands for here, a slower machine. Needs a writable
 * cgroup file system (v1's cpu controller, or v2 with the cpu controller enabled), as root has where no container
 * runtime is in the way.
 */
final class CpuLimit implements AutoCloseable {
  private static final int PERIOD_MICROS = 10_000;
  private static final Path V1_CPU = Path.of("/sys/fs/cgroup/cpu");
  private static final Path V2 = Path.of("/sys/fs/cgroup");

  private final Path group;

  private CpuLimit(Path group) {
    this.group = group;
  }

  static CpuLimit of(String name, double cpus) {
    if (!(cpus > 0)) {
      throw new IllegalArgumentException("a CPU limit must be above 0, not " + cpus);
    }
    long quota = Math.round(cpus * PERIOD_MICROS);
    try {
      if (Files.isWritable(V1_CPU.resolve("cpu.cfs_quota_us"))) {
        Path group = Files.createDirectories(V1_CPU.resolve(name));
        Files.writeString(group.resolve("cpu.cfs_period_us"), Integer.toString(PERIOD_MICROS));
        Files.writeString(group.resolve("cpu.cfs_quota_us"), Long.toString(quota));
        return new CpuLimit(group);
      }
      if (Files.readString(V2.resolve("cgroup.subtree_control")).contains("cpu")) {
        Path group = Files.createDirectories(V2.resolve(name));
        Files.writeString(group.resolve("cpu.max"), quota + " " + PERIOD_MICROS);
        return new CpuLimit(group);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot make a cgroup for a CPU limit here (" + e + "): run the benchmark as root"
          + " on a machine whose cgroup file system is writable, or without the limit", e);
    }
    throw new IllegalStateException("no cgroup cpu controller to write a CPU limit to under /sys/fs/cgroup: run the"
        + " benchmark without the limit");
  }

  /** The command line to put in front of a process's own: it joins the cgroup, then becomes the process. */
  List<String> launcher() {
    return List.of("sh", "-c", "echo $$ > \"$0\"/cgroup.procs && exec \"$@\"", group.toString());
  }

  /** The periods so far, and those in which the limit held the processes back: whether the limit is what bounds them. */
  Periods periods() {
    try {
      List<String> stat = Files.readAllLines(group.resolve("cpu.stat"));
      return new Periods(field(stat, "nr_periods"), field(stat, "nr_throttled"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static long field(List<String> stat, String name) {
    return stat.stream().filter(line -> line.startsWith(name + " "))
        .mapToLong(line -> Long.parseLong(line.substring(name.length()).trim())).sum();
  }

  record Periods(long all, long throttled) {
    Periods since(Periods before) {
      return new Periods(all - before.all, throttled - before.throttled);
    }

    Periods plus(Periods other) {
      return new Periods(all + other.all, throttled + other.throttled);
    }

    double throttledShare() {
      return all == 0 ? 0 : (double) throttled / all;
    }
  }

  /** Removes the cgroup; its processes must have ended. */
  @Override
  public void close() throws IOException {
    Files.deleteIfExists(group);
  }
}
