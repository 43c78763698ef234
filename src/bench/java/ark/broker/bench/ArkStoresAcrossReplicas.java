package ark.broker.bench;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.TestKafka;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Ark's chunks and events across two replicas on one Kafka broker (issues 26 and 27): two broker processes
 * ({@code java -jar}) sharing a cluster of their own, and {@link ArkBrokerLoad} in a process of its own writing on
 * replica A while its readers and watchers are on replica B. Arguments after the class name go to ArkBrokerLoad
 * (default: a minute of paced warm-up, then {@code chunk-latency event-latency}). Run with
 * {@code mvn -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.ArkStoresAcrossReplicas}.
 */
public final class ArkStoresAcrossReplicas {
  private static final List<String> DEFAULT_LOAD = List.of("--warmup", "60", "--seconds", "15", "chunk-latency",
      "event-latency");

  private ArkStoresAcrossReplicas() {
  }

  public static void main(String[] args) throws Exception {
    TestKafka kafka = TestKafka.shared();
    Path work = Files.createTempDirectory("ark-bench-stores-replicas");
    Map<String, String> environment = ReplicaBenchmark.replicaEnvironment(kafka);
    int portA = BrokerProcess.freePort();
    int portB = BrokerProcess.freePort();
    try (BrokerProcess a = BrokerProcess.start(work.resolve("a"), portA, environment);
         BrokerProcess b = BrokerProcess.start(work.resolve("b"), portB, environment)) {
      List<String> load = new ArrayList<>(List.of("--url", "http://127.0.0.1:" + portA,
          "--url2", "http://127.0.0.1:" + portB, "--pid", a.pid() + "," + b.pid()));
      load.addAll(args.length == 0 ? DEFAULT_LOAD : List.of(args));
      List<String> command = JavaProcess.command("1g", ArkBrokerLoad.class, load);
      int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
      if (exit != 0) {
        throw new IllegalStateException("ArkBrokerLoad ended with " + exit);
      }
    }
  }
}
