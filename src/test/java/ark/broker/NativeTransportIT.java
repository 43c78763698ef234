package ark.broker;

import ark.broker.testing.BrokerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker serves on Netty's native epoll transport where it loads, says so when it starts, and serves as well on
 * Java's NIO when an operator turns native transports off with Netty's own JVM option.
 */
@EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "aarch64"})
class NativeTransportIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir
  Path dir;

  @Test
  void onLinuxTheBrokerServesOnNativeEpoll() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir, BrokerProcess.freePort(), Map.of())) {
      assertThat(broker.output()).contains("; network I/O on native epoll");
      assertAnswersAQuestion(broker);
    }
  }

  @Test
  void nettysNoNativeOptionPutsItOnJavaNioAndSaysWhy() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir, BrokerProcess.freePort(),
        Map.of("JAVA_TOOL_OPTIONS", "-Dio.netty.transport.noNative=true"))) {
      assertThat(broker.output()).containsPattern("; network I/O on Java NIO \\(native epoll unavailable: .*noNative");
      assertAnswersAQuestion(broker);
    }
  }

  private static void assertAnswersAQuestion(BrokerProcess broker) throws Exception {
    HttpResponse<String> created = HTTP.send(HttpRequest.newBuilder(broker.base.resolve("/questions"))
        .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(
            "{\"recipient\":\"ark://users/jane\",\"sender\":\"ark://agents/a\",\"content\":\"Deploy?\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    String id = new io.vertx.core.json.JsonObject(created.body()).getString("id");
    HttpResponse<String> answered = HTTP.send(HttpRequest.newBuilder(broker.base.resolve("/questions/" + id))
        .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"response\":\"yes\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(answered.statusCode()).as(answered.body()).isEqualTo(200);
    assertThat(answered.body()).contains("\"response\":\"yes\"");
  }
}
