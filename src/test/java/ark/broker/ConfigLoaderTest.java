package ark.broker;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
}
