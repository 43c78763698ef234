package ark.broker;

import com.sun.net.httpserver.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The start-up warm-up runs the request path in a broker of its own: it serves creates and answers, and none of it
 * reaches the real data directory or a channel the real broker is configured with.
 */
class StartupWarmUpTest {
  private static final Path TMP = Path.of(System.getProperty("java.io.tmpdir"));

  @Test
  void servesCreatesAndAnswersUnderTheRealLimitsWithoutTouchingItsDataOrChannels(@TempDir Path temp) throws Exception {
    AtomicInteger webhookCalls = new AtomicInteger();
    HttpServer webhook = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    webhook.createContext("/", exchange -> {
      webhookCalls.incrementAndGet();
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    webhook.start();
    try {
      Path realData = temp.resolve("data");
      JsonObject config = ConfigLoader.bundledDefaults();
      config.getJsonObject("warmUp").put("seconds", 1);
      config.getJsonObject("store").put("dataDir", realData.toString());
      // What a deployment behind a proxy sets, which would refuse the warm-up's own loopback clients.
      config.getJsonObject("http").put("allowedHosts", new JsonArray().add("broker.example.com"))
          .put("maxConnectionsPerClient", 2);
      config.getJsonObject("channels").getJsonObject("webhook").put("enabled", true)
          .put("url", "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook").put("secret", "s3cret-s3cret");

      long pairs = StartupWarmUp.run(config);

      assertThat(pairs).as("create+answer pairs served in the warm-up").isPositive();
      assertThat(realData).as("the real data directory").doesNotExist();
      assertThat(webhookCalls).as("calls to the configured webhook").hasValue(0);
    } finally {
      webhook.stop(0);
    }
  }

  @Test
  void zeroSecondsIsOffAndMoreThanAMinuteIsRefused() {
    JsonObject config = ConfigLoader.bundledDefaults();
    config.getJsonObject("warmUp").put("seconds", 0);
    assertThat(StartupWarmUp.run(config)).isZero();

    config.getJsonObject("warmUp").put("seconds", 61);
    assertThatThrownBy(() -> StartupWarmUp.run(config)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("warmUp.seconds");
  }

  @Test
  void leavesNoTemporaryDirectoryBehind(@TempDir Path temp) throws Exception {
    JsonObject config = ConfigLoader.bundledDefaults();
    config.getJsonObject("warmUp").put("seconds", 1);
    config.getJsonObject("store").put("dataDir", temp.resolve("data").toString());
    long before = warmUpDirectories();

    StartupWarmUp.run(config);

    assertThat(warmUpDirectories()).as("warm-up directories in %s", TMP).isEqualTo(before);
  }

  private static long warmUpDirectories() throws Exception {
    try (var entries = Files.list(TMP)) {
      return entries.filter(path -> path.getFileName().toString().startsWith("ark-broker-warm-up")).count();
    }
  }
}
