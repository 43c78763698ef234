package ark.broker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docker-compose.yml says only what the broker reads and serves: its settings are keys of
 * conf/broker.json, the load balancer sends both ports to every replica, and Kafka is the version
 * the broker's client is built for. (No Docker daemon in CI: the stack itself is not started here.)
 */
class ComposeFileTest {
  private static final JsonNode COMPOSE = read();

  /** With its anchors and aliases resolved, as Compose reads it. */
  private static JsonNode read() {
    try (java.io.Reader file = java.nio.file.Files.newBufferedReader(Path.of("docker-compose.yml"))) {
      return new ObjectMapper().valueToTree(new Yaml().load(file));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> brokers() {
    List<String> brokers = new ArrayList<>();
    COMPOSE.path("services").properties().forEach(service -> {
      if (service.getValue().has("build")) {
        brokers.add(service.getKey());
      }
    });
    return brokers;
  }

  @Test
  void atLeastTwoReplicasShareKafkaWithSettingsTheBrokerReads() throws Exception {
    Set<String> known = KubeManifestsTest.settingVariables();

    assertThat(brokers()).hasSizeGreaterThanOrEqualTo(2).allSatisfy(broker -> {
      JsonNode environment = COMPOSE.path("services").path(broker).path("environment");
      Set<String> names = new HashSet<>();
      environment.fieldNames().forEachRemaining(names::add);
      assertThat(names).isSubsetOf(known).contains("KAFKA_BOOTSTRAP_SERVERS", "MCP_ALLOWED_HOSTS");
      assertThat(environment.path("KAFKA_BOOTSTRAP_SERVERS").asText()).startsWith("kafka:");
      assertThat(environment.path("MCP_ALLOWED_HOSTS").asText().split(",")).contains("localhost", "lb");
    });
  }

  @Test
  void theLoadBalancerSendsBothPortsToEveryReplicaWithoutStickiness() {
    String nginx = COMPOSE.path("configs").path("lb").path("content").asText();

    for (String broker : brokers()) {
      assertThat(nginx).contains("server " + broker + ":8080", "server " + broker + ":8081");
    }
    assertThat(nginx).doesNotContain("ip_hash", "hash ", "sticky", "least_conn");
    assertThat(nginx).contains("proxy_buffering off");
    assertThat(COMPOSE.path("services").path("lb").path("ports").toString()).contains("8080:8080", "8081:8081");
  }

  @Test
  void theLoadBalancerWaitsForReadyReplicasAndListensOnThisMachineOnly() {
    JsonNode lb = COMPOSE.path("services").path("lb");

    for (String broker : brokers()) {
      assertThat(COMPOSE.path("services").path(broker).path("healthcheck").path("test").toString())
          .as("%s is healthy once /readyz says ready", broker).contains("/readyz", "8080");
      assertThat(lb.path("depends_on").path(broker).path("condition").asText()).isEqualTo("service_healthy");
    }
    lb.path("ports").forEach(port -> assertThat(port.asText()).startsWith("127.0.0.1:"));
  }

  @Test
  void kafkaIsTheVersionTheBrokersClientIsBuiltFor() {
    assertThat(COMPOSE.path("services").path("kafka").path("image").asText())
        .isEqualTo("apache/kafka:" + AppInfoParser.getVersion());
  }
}
