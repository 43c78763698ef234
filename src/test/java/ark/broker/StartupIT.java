package ark.broker;

import ark.broker.testing.BrokerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** A broker that cannot start says why in one line and exits non-zero, instead of hanging half-started. */
class StartupIT {
  @TempDir
  Path dataDir;

  @Test
  void aSecondBrokerOnTheSameDataDirectoryRefusesToStart() throws Exception {
    try (BrokerProcess first = BrokerProcess.start(dataDir, BrokerProcess.freePort(), Map.of());
         BrokerProcess second = BrokerProcess.launch(dataDir, BrokerProcess.freePort(), Map.of())) {
      assertThat(second.awaitExit(Duration.ofSeconds(30))).isEqualTo(1);
      assertThat(second.output()).contains("ERROR").contains("is in use by another broker process");
    }
  }

  @Test
  void aMalformedSettingRefusesToStartNamingTheVariable() throws Exception {
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, BrokerProcess.freePort(), Map.of("STORE_FSYNC", "maybe"))) {
      assertThat(broker.awaitExit(Duration.ofSeconds(30))).isEqualTo(1);
      assertThat(broker.output()).contains("STORE_FSYNC='maybe' is not a valid boolean");
    }
  }

  @Test
  void withKafkaUnreachableItExitsWithOneClearMessage() throws Exception {
    // Nothing listens on a free port: Kafka never answers.
    String kafka = "127.0.0.1:" + BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, BrokerProcess.freePort(), Map.of("KAFKA_BOOTSTRAP_SERVERS", kafka))) {
      assertThat(broker.awaitExit(Duration.ofSeconds(60))).isEqualTo(1);
      String output = broker.output();
      assertThat(output.lines().filter(line -> line.contains("failed to start")))
          .singleElement().asString().contains("Kafka at " + kafka);
      assertThat(output).doesNotContain("Promise already completed").doesNotContain("\tat ");
    }
  }

  @Test
  void arksPortVariableSetsTheRestPort() throws Exception {
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.start(dataDir, port, Map.of("PORT", Integer.toString(port)))) {
      assertThat(broker.output()).contains("REST API on http://127.0.0.1:" + port);
    }
  }
}
