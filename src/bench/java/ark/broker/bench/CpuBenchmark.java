package ark.broker.bench;

import ark.broker.testing.BrokerProcess;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The broker's CPU per operation: CPU-seconds its process spends per 10,000 REST create+answer pairs,
 * read from {@code /proc/<pid>/stat}, with the broker as users run it ({@code java -jar}, default
 * configuration, fsync on) and the load from {@link LoadGenerator} processes of their own. Run with
 * {@code mvn -o -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.CpuBenchmark}; tune with
 * {@code -Dbench.generators=2 -Dbench.clients=16 -Dbench.pairs=60000 -Dbench.warmupPairs=25000 -Dbench.settlingRounds=8}; {@code -Dbroker.jar=other/ark-broker.jar}
 * measures another build's broker the same way. The broker's CPU is printed for the warm-up (cold: the JIT compiler
 * at work) and for the measured pairs (warm: after rounds of them until the JIT compiler took at most a tenth of
 * the broker's CPU), each split by what its threads do.
 * {@code -Dbench.jfr=target/broker.jfr} records the broker with Java Flight Recorder (profile settings) for
 * {@link HotMethods} to read; {@code -Dbench.brokerJavaOptions} adds JVM options (a collector, a heap size).
 */
public final class CpuBenchmark {
  public static void main(String[] args) throws Exception {
    int generators = Integer.getInteger("bench.generators", 2);
    int clients = Integer.getInteger("bench.clients", 16);
    // Long enough (10-20 s) that the garbage collector's cycles average out instead of landing in or out of the window.
    int pairs = Integer.getInteger("bench.pairs", 60_000);
    // Until the JIT compiler is done: after 5,000 pairs per generator it still took 40% of the broker's CPU.
    int warmupPairs = Integer.getInteger("bench.warmupPairs", 25_000);
    String loadBeforeRun = Machine.loadAverage();
    Path work = Files.createTempDirectory("ark-bench-cpu");
    int port = BrokerProcess.freePort();
    // BrokerProcess quiets the access log for tests; this measures the broker as it is configured out of the box.
    Map<String, String> environment = new HashMap<>(Map.of("LOG_LEVEL", "INFO", "ACCESS_LOG_LEVEL", "INFO"));
    String jfr = System.getProperty("bench.jfr");
    BrokerJavaOptions.addTo(environment,
        jfr == null ? "" : "-XX:StartFlightRecording=settings=profile,filename=" + Path.of(jfr).toAbsolutePath());
    try (BrokerProcess broker = BrokerProcess.start(work.resolve("data"), port, environment)) {
      Map<String, Double> atStart = Machine.cpuSecondsByRole(broker.pid());
      double brokerAtStart = Machine.cpuSeconds(broker.pid());
      try (OutsideLoad load = OutsideLoad.start(List.of(port), generators, clients, warmupPairs, pairs, work)) {
        load.awaitWarm();
        double brokerAfterWarmUp = Machine.cpuSeconds(broker.pid());
        Map<String, Double> afterWarmUp = Machine.cpuSecondsByRole(broker.pid());
        int rounds = load.settle(List.of(broker.pid()), Integer.getInteger("bench.settlingRounds", 8));
        double brokerBefore = Machine.cpuSeconds(broker.pid());
        Map<String, Double> warm = Machine.cpuSecondsByRole(broker.pid());
        double brokerSystemBefore = Machine.systemSeconds(broker.pid());
        double loadBefore = load.cpuSeconds();
        OutsideLoad.Measured measured = load.measure();
        double seconds = measured.seconds();
        long errors = measured.errors();
        double brokerCpu = Machine.cpuSeconds(broker.pid()) - brokerBefore;
        Map<String, Double> end = Machine.cpuSecondsByRole(broker.pid());
        int warmedWith = warmupPairs * generators;
        double coldCpu = brokerAfterWarmUp - brokerAtStart;
        double brokerSystem = Machine.systemSeconds(broker.pid()) - brokerSystemBefore;
        double loadCpu = load.cpuSeconds() - loadBefore;
        Percentiles creates = measured.creates();
        Percentiles answers = measured.answers();
        int done = measured.pairs();
        System.out.printf("%nmachine: %d cores (%s), load average before the run %s%n",
            Machine.cores(), Machine.cpuModel(), loadBeforeRun);
        System.out.printf("broker: java -jar, default config (fsync on, access log as configured by default), %s%n",
            "CPU from /proc/<pid>/stat utime+stime at " + Machine.ticksPerSecond() + " ticks/s");
        System.out.printf("load: %d generator processes x %d clients, each client creating a question and then answering it%n",
            generators, clients);
        System.out.printf("%d create+answer pairs in %.2f s: %.0f pairs/s (%.0f requests/s), %d errors%n",
            done, seconds, done / seconds, 2 * done / seconds, errors);
        System.out.printf("broker CPU: %.2f s (%.2f s of it in the kernel: sockets, fsync), %.2f CPU-seconds per 10,000"
            + " pairs (%.0f%% of one core)%n", brokerCpu, brokerSystem, brokerCpu * 10_000 / done, 100 * brokerCpu / seconds);
        System.out.printf("  per 10,000 pairs by thread role (CPU-s): %s; measured after %d settling rounds%n",
            Machine.describeRoles(warm, end, 10_000.0 / done), rounds);
        System.out.printf("warm-up, %d pairs from a fresh broker: %.2f CPU-seconds per 10,000 pairs; by thread role: %s%n",
            warmedWith, coldCpu * 10_000 / warmedWith, Machine.describeRoles(atStart, afterWarmUp, 10_000.0 / warmedWith));
        System.out.printf("generators' CPU: %.2f s, %.2f CPU-seconds per 10,000 pairs%n", loadCpu, loadCpu * 10_000 / done);
        long[] resident = Machine.residentMebibytes(broker.pid());
        System.out.printf("broker's resident memory after the measured pairs: %d MiB, peak %d MiB%n", resident[0],
            resident[1]);
        System.out.printf("create  %s%nanswer  %s%n", creates.summary(), answers.summary());
        System.out.println("limited by: the broker and the generators sharing these cores (and anything else running),"
            + " and an fsync per write");
        if (jfr != null) {
          System.out.println("flight recording of the broker (warm-up included): " + jfr
              + "; read it with java -cp target/test-classes ark.broker.bench.HotMethods " + jfr);
        }
        String limit = String.format("broker and generators (%.2f CPU-s per 10,000 pairs) share %d cores, load average %s;"
            + " fsync per write", loadCpu * 10_000 / done, Machine.cores(), Machine.loadAverage());
        ResultLine.print(String.format("Broker CPU per 10,000 REST create+answer pairs, warm (after %,d pairs)",
                warmedWith + rounds * done),
            String.format("%.2f CPU-s (%s)", brokerCpu * 10_000 / done, Machine.describeRoles(warm, end, 10_000.0 / done)),
            "40% below the issue's commit c9341b6 measured the same way", limit);
        ResultLine.print(String.format("Broker CPU per 10,000 pairs, cold (the first %,d pairs of a fresh broker)", warmedWith),
            String.format("%.2f CPU-s (%s)", coldCpu * 10_000 / warmedWith, Machine.describeRoles(atStart, afterWarmUp, 10_000.0 / warmedWith)), "–", limit);
        ResultLine.print("REST create+answer pairs, outside generators", String.format("%.0f pairs/s; create %s; answer %s",
            done / seconds, creates.summary(), answers.summary()), "–", limit);
        ResultLine.print(String.format("Broker's resident memory after %,d pairs, every question kept",
                warmedWith + (rounds + 1) * done), String.format("%d MiB (peak %d MiB)", resident[0], resident[1]), "–",
            "-Xmx1g: the collector sizes the heap to it; " + limit);
      }
    }
  }

  private CpuBenchmark() {
  }
}
