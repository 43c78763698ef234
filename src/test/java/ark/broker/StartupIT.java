package ark.broker;

import ark.broker.testing.BrokerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** A broker that cannot start says why in one line and exits non-zero, instead of hanging half-started. */
class StartupIT {
  @TempDir
  Path dataDir;

  /** A warm-up longer than any test waits: a refusal that comes before it comes before anything slow. */
  private static final Map<String, String> LONG_WARM_UP = Map.of("WARM_UP_SECONDS", "60");

  @Test
  void aSecondBrokerOnTheSameDataDirectoryRefusesToStartBeforeWarmingUp() throws Exception {
    try (BrokerProcess first = BrokerProcess.start(dataDir, BrokerProcess.freePort(), Map.of());
         BrokerProcess second = BrokerProcess.launch(dataDir, BrokerProcess.freePort(), LONG_WARM_UP)) {
      assertThat(second.awaitExit(Duration.ofSeconds(30))).isEqualTo(1);
      assertThat(onlyLine(second, "ERROR")).contains("Data directory " + dataDir.resolve("questions")
          + " is in use by another broker process").contains("store.dataDir, STORE_DATA_DIR");
      assertThat(second.output()).doesNotContain("Warming up");
    }
  }

  @Test
  void aDataDirectoryThatCannotBeMadeIsNamedWithWhatAndWhy() throws Exception {
    // Root may write anywhere: a file where the directory should be stops anyone.
    Path file = Files.writeString(dataDir.resolve("not-a-directory"), "");
    try (BrokerProcess broker = BrokerProcess.launch(file.resolve("data"), BrokerProcess.freePort(), LONG_WARM_UP)) {
      assertThat(broker.awaitExit(Duration.ofSeconds(30))).isEqualTo(1);
      assertThat(onlyLine(broker, "ERROR")).contains("the data directory " + file.resolve("data")
              + " (store.dataDir, STORE_DATA_DIR) cannot be used: ")
          .containsPattern(Pattern.quote(file.toString()) + ".*: (it is a file, not a directory|Not a directory)")
          .contains("set STORE_DATA_DIR to a directory");
      assertThat(broker.output()).doesNotContain("Warming up").doesNotContain("\tat ");
    }
  }

  @Test
  void aPortInUseIsNamedWithItsSettingBeforeWarmingUp() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      try (BrokerProcess broker = BrokerProcess.launch(dataDir, port, LONG_WARM_UP)) {
        assertThat(broker.awaitExit(Duration.ofSeconds(30))).isEqualTo(1);
        assertThat(onlyLine(broker, "ERROR")).contains("cannot listen on 127.0.0.1:" + port + " for http: port " + port
            + " is in use by another process; stop it, or set http.port (HTTP_PORT) to a free port");
        assertThat(broker.output()).doesNotContain("Warming up");
      }
    }
  }

  @Test
  void aBrokenConfigFileIsNamedWithTheLineOfTheMistake() throws Exception {
    Path config = Files.writeString(dataDir.resolve("broker.json"), "{\n  \"http\": {\"port\": 8080,}\n}\n");
    try (BrokerProcess broker = BrokerProcess.launch(dataDir.resolve("data"), BrokerProcess.freePort(),
        Map.of(ConfigLoader.CONFIG_FILE_VARIABLE, config.toString()))) {
      assertThat(broker.awaitExit(Duration.ofSeconds(30))).isEqualTo(1);
      assertThat(onlyLine(broker, "ERROR")).contains("the configuration file " + config
          + " named by ARK_BROKER_CONFIG is not valid JSON at line 2, column").doesNotContain("Source:");
    }
  }

  @Test
  void warmingUpIsOneLineBeforeIt() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dataDir, BrokerProcess.freePort(), Map.of("WARM_UP_SECONDS", "1"))) {
      List<String> lines = broker.output().lines().toList();
      int warming = indexOf(lines, "Warming up the request path for 1 s (warmUp.seconds): the ports are open");
      assertThat(warming).as("the line that says the warm-up starts").isNotNegative()
          .isLessThan(indexOf(lines, "Warmed up the request path"));
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

  /** The one line of the process's output at {@code level}. */
  private static String onlyLine(BrokerProcess broker, String level) throws Exception {
    List<String> lines = broker.output().lines().filter(line -> line.contains(" " + level + " ")).toList();
    assertThat(lines).as("%s lines of:%n%s", level, broker.output()).hasSize(1);
    return lines.get(0);
  }

  private static int indexOf(List<String> lines, String text) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i;
      }
    }
    return -1;
  }
}
