package ark.broker.bench;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.TestKafka;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The scaling question for users who outgrow one machine: the same outside load (create+answer pairs from
 * {@value #GENERATORS} generator processes of {@code -Dbench.clients=8} clients each, spread evenly over the
 * replicas) against 1, 2 and 3 replicas on one Kafka broker, each count on a cluster of its own (fresh topics),
 * warmed until the JIT compilers have settled; then pairs per second, latency, and the CPU of replicas, Kafka and
 * generators per 10,000 pairs. Every replica applies every record of the one partition, so the figures show what
 * a replica's share of the writes costs when the replicas share this machine's cores with Kafka and the
 * generators (docs/benchmarks.md has the model). Run with
 * {@code mvn -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.ReplicaScalingBenchmark}
 * ({@code -Dbench.warmupPairs=6000 -Dbench.pairs=24000 -Dbench.settlingRounds=8}).
 *
 * <p>{@code -Dbench.replicaCpus=0.4} gives each replica a CPU limit of its own ({@link CpuLimit}, as a pod's
 * {@code limits.cpu}), so that replicas stand for machines of their own while Kafka and the generators have the
 * rest of the cores: the figures then show what a second and third replica add, not what they take from each other.
 */
public final class ReplicaScalingBenchmark {
  private static final int GENERATORS = 6;
  private static final int CLIENTS_PER_GENERATOR = Integer.getInteger("bench.clients", 8);
  /** The replica counts measured, in turn: {@code -Dbench.replicas=1,2,3}. */
  private static final List<Integer> REPLICA_COUNTS = Stream.of(System.getProperty("bench.replicas", "1,2,3").split(","))
      .map(String::trim).map(Integer::valueOf).toList();
  private static final int WARMUP_PAIRS = Integer.getInteger("bench.warmupPairs", 6_000);
  private static final int PAIRS = Integer.getInteger("bench.pairs", 24_000);
  private static final int SETTLING_ROUNDS = Integer.getInteger("bench.settlingRounds", 8);
  /** Each replica's CPU limit in cores; none (0) lets every process share every core. */
  private static final double REPLICA_CPUS = Double.parseDouble(System.getProperty("bench.replicaCpus", "0"));

  private ReplicaScalingBenchmark() {
  }

  public static void main(String[] args) throws Exception {
    TestKafka kafka = TestKafka.shared();
    Path work = Files.createTempDirectory("ark-bench-scaling");
    List<String> rows = new ArrayList<>();
    for (int replicas : REPLICA_COUNTS) {
      rows.add(measure(kafka, work.resolve(replicas + "-replicas"), replicas));
    }
    System.out.printf("%nReplicas on one Kafka broker (one partition a topic), %d cores, %s, %d generator processes x %d"
        + " clients spread over the replicas, warm:%n", Machine.cores(), sharing(), GENERATORS, CLIENTS_PER_GENERATOR);
    rows.forEach(System.out::println);
  }

  private static String measure(TestKafka kafka, Path work, int count) throws Exception {
    Map<String, String> environment = ReplicaBenchmark.replicaEnvironment(kafka);
    // Every replica gets the same options: a flight recording written to a directory (filename=/tmp/jfrs/)
    // gets a file of its own per process.
    BrokerJavaOptions.addTo(environment);
    List<BrokerProcess> replicas = new ArrayList<>();
    List<CpuLimit> limits = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      List<Long> pids = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        int port = BrokerProcess.freePort();
        List<String> launcher = List.of();
        if (REPLICA_CPUS > 0) {
          CpuLimit limit = CpuLimit.of("ark-bench-replica-" + i, REPLICA_CPUS);
          limits.add(limit);
          launcher = limit.launcher();
        }
        BrokerProcess replica = BrokerProcess.start(work.resolve("replica-" + i), port, environment, launcher);
        replicas.add(replica);
        ports.add(port);
        pids.add(replica.pid());
      }
      try (OutsideLoad load = OutsideLoad.start(ports, GENERATORS, CLIENTS_PER_GENERATOR, WARMUP_PAIRS, PAIRS, work)) {
        load.awaitWarm();
        System.out.printf("%d replica(s):%n", count);
        int rounds = load.settle(ReplicaBenchmark.withKafka(kafka, pids.toArray(Long[]::new)), SETTLING_ROUNDS);
        double replicasBefore = cpuSeconds(pids);
        double kafkaBefore = ReplicaBenchmark.kafkaCpuSeconds(kafka);
        double loadBefore = load.cpuSeconds();
        CpuLimit.Periods periodsBefore = periods(limits);
        OutsideLoad.Measured warm = load.measure();
        double per10k = 10_000.0 / warm.pairs();
        String row = String.format("%d replica(s): %.0f pairs/s (create %s; answer %s), %d errors, after %d settling"
                + " rounds; CPU-s per 10,000 pairs: replicas %.2f, Kafka %.2f, generators %.2f%s", count,
            warm.pairsPerSecond(), warm.creates().summary(), warm.answers().summary(), warm.errors(), rounds,
            (cpuSeconds(pids) - replicasBefore) * per10k, (ReplicaBenchmark.kafkaCpuSeconds(kafka) - kafkaBefore) * per10k,
            (load.cpuSeconds() - loadBefore) * per10k, limits.isEmpty() ? "" : String.format(
                "; replicas held at their limit in %.0f%% of its periods", 100 * periods(limits).since(periodsBefore).throttledShare()));
        System.out.println(row);
        ResultLine.print(count + " replica(s) on Kafka: create+answer pairs, warm", String.format("%.0f pairs/s; create %s",
            warm.pairsPerSecond(), warm.creates().summary()), "2 replicas above 1", String.format(
            "%d replicas (%s), Kafka and %d generator processes on %d cores", count, sharing(), GENERATORS, Machine.cores()));
        return row;
      }
    } finally {
      for (BrokerProcess replica : replicas) {
        replica.close();
      }
      for (CpuLimit limit : limits) {
        limit.close();
      }
    }
  }

  private static String sharing() {
    return REPLICA_CPUS > 0 ? String.format("each replica limited to %.2f of a core (CFS quota)", REPLICA_CPUS)
        : "every process sharing every core";
  }

  private static CpuLimit.Periods periods(List<CpuLimit> limits) {
    return limits.stream().map(CpuLimit::periods).reduce(new CpuLimit.Periods(0, 0), CpuLimit.Periods::plus);
  }

  private static double cpuSeconds(List<Long> pids) {
    return pids.stream().mapToDouble(Machine::cpuSeconds).sum();
  }
}
