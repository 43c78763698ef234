package ark.broker;

import ark.broker.testing.TestBroker;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.json.JsonObject;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
    assertThat(nginx).contains("listen 8080;", "listen 8081;");
  }

  @Test
  void theStackIsPublishedOnPortsABrokerStartedAsTheReadmeSaysLeavesFree() {
    JsonObject defaults = ConfigLoader.bundledDefaults();
    List<String> published = new ArrayList<>();
    COMPOSE.path("services").path("lb").path("ports").forEach(port -> published.add(port.asText()));

    // "127.0.0.1:<host port>:<container port>"
    assertThat(published).extracting(port -> port.split(":")[2]).containsExactlyInAnyOrder("8080", "8081");
    assertThat(published).extracting(port -> Integer.parseInt(port.split(":")[1]))
        .doesNotContain(defaults.getJsonObject("http").getInteger("port"), defaults.getJsonObject("mcp").getInteger("port"));
  }

  @Test
  void aStoppingReplicaHasTimeToDrain() {
    ShutdownSettings shutdown = ShutdownSettings.from(ConfigLoader.bundledDefaults().getJsonObject("shutdown"));

    for (String broker : brokers()) {
      String grace = COMPOSE.path("services").path(broker).path("stop_grace_period").asText();
      assertThat(grace).as("%s's stop_grace_period", broker).matches("\\d+s");
      assertThat(Long.parseLong(grace.replace("s", "")))
          .isGreaterThan(shutdown.delay().plus(shutdown.timeout()).toSeconds() + ProcessShutdown.CLOSE_SECONDS);
    }
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
  void theBrokersAskForTokensThatTheTokensServiceMakesBeforeThey() {
    JsonNode services = COMPOSE.path("services");

    for (String broker : brokers()) {
      JsonNode environment = services.path(broker).path("environment");
      assertThat(environment.path("AUTH_MODE").asText()).as("never open, even by mistake").isEqualTo("required");
      assertThat(environment.path("HTTP_ALLOWED_HOSTS").asText().split(",")).contains("localhost", "lb");
      Path tokensFile = Path.of(environment.path("AUTH_TOKENS_FILE").asText());
      String volume = mountedVolume(services.path(broker), tokensFile.getParent() + ":ro");
      assertThat(volume).as("%s mounts the tokens read-only at %s", broker, tokensFile.getParent()).isNotNull();

      String maker = services.path(broker).path("depends_on").properties().stream()
          .filter(dependency -> dependency.getValue().path("condition").asText().equals("service_completed_successfully"))
          .map(Map.Entry::getKey).findFirst().orElseThrow(() -> new AssertionError(broker + " waits for no tokens"));
      JsonNode tokens = services.path(maker);
      String target = tokens.path("configs").get(0).path("target").asText();
      assertThat(COMPOSE.path("configs").path(tokens.path("configs").get(0).path("source").asText()).path("file").asText())
          .isEqualTo("./scripts/dev-tokens.sh");
      String directory = tokens.path("entrypoint").get(2).asText();
      assertThat(tokens.path("entrypoint").get(1).asText()).isEqualTo(target);
      assertThat(mountedVolume(tokens, directory)).isEqualTo(volume);
      assertThat(tokensFile.getFileName()).as("the file the script writes").hasToString("tokens.json");
      Path keysFile = Path.of(environment.path("MCP_STREAM_TOKEN_KEYS_FILE").asText());
      assertThat(keysFile.getParent()).as("the replicas' shared stream token key, in the same volume").isEqualTo(tokensFile.getParent());
      assertThat(keysFile.getFileName()).as("the file the script writes").hasToString("mcp-stream-token.keys");
    }
  }

  @Test
  void theDevTokensScriptMakesTokensTheBrokerAcceptsOnceAndPrintsThemAgain(@TempDir Path dir) throws Exception {
    Path secrets = dir.resolve("secrets");
    String first = devTokens(secrets);
    Map<String, String> tokens = new HashMap<>();
    first.lines().map(line -> line.split("=", 2)).forEach(pair -> tokens.put(pair[0], pair[1]));

    assertThat(tokens).containsOnlyKeys("ARK_ADMIN_TOKEN", "ARK_HUMAN_TOKEN", "ARK_AGENT_TOKEN", "ARK_SERVICE_TOKEN");
    assertThat(devTokens(secrets)).as("run again, it keeps its tokens").isEqualTo(first);
    String hashes = Files.readString(secrets.resolve("tokens.json"));
    tokens.values().forEach(token -> assertThat(hashes).doesNotContain(token));

    String key = Files.readString(secrets.resolve("mcp-stream-token.keys"));
    assertThat(devTokens(secrets)).isEqualTo(first);
    assertThat(Files.readString(secrets.resolve("mcp-stream-token.keys"))).as("run again, it keeps its key").isEqualTo(key);

    JsonObject auth = new JsonObject().put("mode", "required").put("tokensFile", secrets.resolve("tokens.json").toString());
    JsonObject mcp = new JsonObject().put("streamTokenKeysFile", secrets.resolve("mcp-stream-token.keys").toString());
    try (TestBroker broker = TestBroker.start(dir.resolve("data"), new JsonObject().put("auth", auth).put("mcp", mcp))) {
      assertThat(broker.get("/whoami").status()).isEqualTo(401);
      assertThat(broker.as(tokens.get("ARK_ADMIN_TOKEN")).get("/whoami").json().getString("kind")).isEqualTo("admin");
      assertThat(broker.as(tokens.get("ARK_HUMAN_TOKEN")).get("/whoami").json().getString("kind")).isEqualTo("human");
      assertThat(broker.as(tokens.get("ARK_AGENT_TOKEN")).get("/whoami").json().getString("name"))
          .isEqualTo("ark://agents/dev-agent");
      TestBroker.Response service = broker.as(tokens.get("ARK_SERVICE_TOKEN"))
          .send(HttpRequest.newBuilder(broker.base.resolve("/whoami")).header("X-Ark-Agent", "ark://agents/team-a/helper"));
      assertThat(service.json().getString("kind")).isEqualTo("service");
      assertThat(service.json().getString("actingFor")).isEqualTo("ark://agents/team-a/helper");
    }
  }

  /** The volume a service mounts at {@code target} (a "volume:path[:mode]" entry), or null. */
  private static String mountedVolume(JsonNode service, String target) {
    for (JsonNode mount : service.path("volumes")) {
      String[] parts = mount.asText().split(":", 2);
      if (parts.length == 2 && parts[1].equals(target)) {
        return parts[0];
      }
    }
    return null;
  }

  private static String devTokens(Path dir) throws Exception {
    Process script = new ProcessBuilder("sh", "scripts/dev-tokens.sh", dir.toString()).redirectErrorStream(true).start();
    String output = new String(script.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(script.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(script.exitValue()).as(output).isZero();
    return output;
  }

  @Test
  void kafkaIsTheVersionTheBrokersClientIsBuiltFor() {
    assertThat(COMPOSE.path("services").path("kafka").path("image").asText())
        .isEqualTo("apache/kafka:" + AppInfoParser.getVersion());
  }
}
