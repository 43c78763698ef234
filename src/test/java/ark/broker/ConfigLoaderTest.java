package ark.broker;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigLoaderTest {
  private static final JsonObject DEFAULTS = new JsonObject()
      .put("http", new JsonObject().put("host", "127.0.0.1").put("port", 8080).put("bodyLimitBytes", 1048576L))
      .put("store", new JsonObject().put("dataDir", "./data").put("fsync", true));

  @Test
  void everyKeyHasAnUpperSnakeCaseName() {
    assertThat(ConfigLoader.environmentName("http.port")).isEqualTo("HTTP_PORT");
    assertThat(ConfigLoader.environmentName("store.dataDir")).isEqualTo("STORE_DATA_DIR");
    assertThat(ConfigLoader.environmentName("http.bodyLimitBytes")).isEqualTo("HTTP_BODY_LIMIT_BYTES");
  }

  @Test
  void environmentVariablesOverrideWithTheDefaultsTypes() {
    JsonObject config = ConfigLoader.applyEnvironment(DEFAULTS, Map.of(
        "HTTP_PORT", "9090", "STORE_FSYNC", "false", "STORE_DATA_DIR", "/var/lib/ark", "HTTP_BODY_LIMIT_BYTES", "10"));

    assertThat(config.getJsonObject("http").getValue("port")).isEqualTo(9090);
    assertThat(config.getJsonObject("store").getValue("fsync")).isEqualTo(false);
    assertThat(config.getJsonObject("store").getString("dataDir")).isEqualTo("/var/lib/ark");
    assertThat(config.getJsonObject("http").getValue("bodyLimitBytes")).isEqualTo(10L);
    assertThat(DEFAULTS.getJsonObject("http").getInteger("port")).as("defaults untouched").isEqualTo(8080);
  }

  @Test
  void arksOwnNamesWorkBelowTheSpecificOnes() {
    assertThat(ConfigLoader.applyEnvironment(DEFAULTS, Map.of("PORT", "3000", "HOST", "0.0.0.0"))
        .getJsonObject("http")).isEqualTo(new JsonObject().put("host", "0.0.0.0").put("port", 3000).put("bodyLimitBytes", 1048576L));
    assertThat(ConfigLoader.applyEnvironment(DEFAULTS, Map.of("PORT", "3000", "HTTP_PORT", "4000"))
        .getJsonObject("http").getInteger("port")).isEqualTo(4000);
  }

  @Test
  void aMalformedValueStopsTheStartNamingTheVariable() {
    assertThatThrownBy(() -> ConfigLoader.applyEnvironment(DEFAULTS, Map.of("HTTP_PORT", "eighty")))
        .hasMessageContaining("HTTP_PORT='eighty' is not a valid integer");
    assertThatThrownBy(() -> ConfigLoader.applyEnvironment(DEFAULTS, Map.of("STORE_FSYNC", "sometimes")))
        .hasMessageContaining("STORE_FSYNC='sometimes' is not a valid boolean");
  }

  @Test
  void theShippedDefaultsRunTheEmbeddedBrokerOnLoopback() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      JsonObject config = ConfigLoader.load(vertx, Map.of()).await(10, TimeUnit.SECONDS);

      assertThat(config.getJsonObject("http").getString("host")).isEqualTo("127.0.0.1");
      assertThat(config.getJsonObject("http").getInteger("port")).isEqualTo(8080);
      assertThat(config.getJsonObject("store").getString("dataDir")).isEqualTo("./data");
      assertThat(config.getJsonObject("store").getBoolean("fsync")).isTrue();
    } finally {
      vertx.close();
    }
  }

  @Test
  void aConfigFileNeedsOnlyTheKeysItChanges(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("broker.json"), "{\"http\": {\"port\": 9999}}");
    Vertx vertx = Vertx.vertx();
    try {
      JsonObject config = ConfigLoader.load(vertx, Map.of(ConfigLoader.CONFIG_FILE_VARIABLE, file.toString()))
          .await(10, TimeUnit.SECONDS);

      assertThat(config.getJsonObject("http").getInteger("port")).isEqualTo(9999);
      assertThat(config.getJsonObject("http").getString("host")).as("the rest of the section keeps its defaults")
          .isEqualTo(ConfigLoader.bundledDefaults().getJsonObject("http").getString("host"));
      assertThat(config.fieldNames()).containsExactlyInAnyOrderElementsOf(ConfigLoader.bundledDefaults().fieldNames());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aFileThatIsNotJsonIsNamedWithTheLineAndColumnOfTheMistake(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("broken.json"), "{\n  \"http\": {\"port\": 9999,}\n}\n");

    assertThatThrownBy(() -> load(Map.of(ConfigLoader.CONFIG_FILE_VARIABLE, file.toString())))
        .hasMessageStartingWith("the configuration file " + file + " named by ARK_BROKER_CONFIG is not valid JSON at line 2, column")
        .message().doesNotContain("Source:", "com.fasterxml", "Failed to decode");
    Path unfinished = Files.writeString(dir.resolve("unfinished.json"), "{\"http\": {\"port\": 9999}\n");
    assertThatThrownBy(() -> load(Map.of(ConfigLoader.CONFIG_FILE_VARIABLE, unfinished.toString())))
        .hasMessageContaining(unfinished + " named by ARK_BROKER_CONFIG is not valid JSON at line 2")
        .message().doesNotContain("Source:");
  }

  @Test
  void aMissingFileOrOneWithoutAnObjectIsNamed(@TempDir Path dir) throws Exception {
    Path missing = dir.resolve("nowhere.json");

    assertThatThrownBy(() -> load(Map.of(ConfigLoader.CONFIG_FILE_VARIABLE, missing.toString())))
        .hasMessage("the configuration file " + missing + " named by ARK_BROKER_CONFIG does not exist");
    Path list = Files.writeString(dir.resolve("list.json"), "[1, 2]");
    assertThatThrownBy(() -> load(Map.of(ConfigLoader.CONFIG_FILE_VARIABLE, list.toString())))
        .hasMessageStartingWith("the configuration file " + list + " named by ARK_BROKER_CONFIG does not hold a JSON object")
        .message().doesNotContain("java.util", "JsonToken");
  }

  @Test
  void aValueOfTheWrongTypeStopsTheStartNamingTheKeyTheFileAndTheTypeExpected(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("broker.json"), "{\"http\": {\"port\": \"eighty\"}, \"kube\": {\"enabled\": true}}");

    assertThatThrownBy(() -> load(Map.of(ConfigLoader.CONFIG_FILE_VARIABLE, file.toString())))
        .hasMessageContaining("http.port in the configuration file " + file + " named by ARK_BROKER_CONFIG is \"eighty\" (text),"
            + " but must be a number like its default 8080")
        .hasMessageContaining("kube.enabled in the configuration file " + file + " named by ARK_BROKER_CONFIG is true (boolean),"
            + " but must be a text like its default \"auto\"");
  }

  @Test
  void unknownKeysAndMisspeltVariablesAreWarnedWithTheSettingTheyProbablyMean(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("broker.json"),
        "{\"http\": {\"prot\": 9999}, \"stroe\": {\"dataDir\": \"/x\"}, \"channels\": {\"directory\": {\"users\": "
            + "{\"ark://users/ann\": {}}}}, \"zzz\": 1}");
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger logger = (Logger) LoggerFactory.getLogger(ConfigLoader.class);
    logger.addAppender(log);
    try {
      JsonObject config = load(Map.of(ConfigLoader.CONFIG_FILE_VARIABLE, file.toString(),
          "HTTP_ALLOWED_HOST", "example.com", "MCP_PROT", "1", "HTTP_PROXY", "http://proxy:3128", "KAFKA_PORT", "tcp://10.0.0.1:9092",
          "PORT", "7070"));

      assertThat(config.getJsonObject("http").getInteger("port")).as("Ark's PORT is a setting").isEqualTo(7070);
    } finally {
      logger.detachAppender(log);
    }
    String source = "the configuration file " + file + " named by ARK_BROKER_CONFIG";
    assertThat(log.list).allMatch(event -> event.getLevel() == Level.WARN).extracting(ILoggingEvent::getFormattedMessage)
        .containsExactlyInAnyOrder(
            "Unknown setting http.prot in " + source + " is ignored; did you mean http.port (HTTP_PORT)?",
            "Unknown setting stroe in " + source + " is ignored; did you mean store?",
            "Unknown setting zzz in " + source + " is ignored (docs/configuration.md lists every setting)",
            "Environment variable HTTP_ALLOWED_HOST is not a setting and is ignored; did you mean HTTP_ALLOWED_HOSTS (http.allowedHosts)?",
            "Environment variable MCP_PROT is not a setting and is ignored; did you mean MCP_PORT (mcp.port)?");
  }

  @Test
  void aKubernetesServiceLinkInASettingsVariableIsExplained() {
    assertThatThrownBy(() -> ConfigLoader.applyEnvironment(DEFAULTS, Map.of("HTTP_PORT", "tcp://10.0.0.7:8080")))
        .hasMessageContaining("HTTP_PORT='tcp://10.0.0.7:8080' is not a valid integer")
        .hasMessageContaining("enableServiceLinks: false");
  }

  private static JsonObject load(Map<String, String> environment) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      return ConfigLoader.load(vertx, environment).await(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
