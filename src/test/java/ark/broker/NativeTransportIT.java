package ark.broker;

import ark.broker.contract.ArkHttp;
import ark.broker.contract.BrokerUnderTest;
import ark.broker.testing.BrokerProcess;
import ark.broker.testing.TestBroker.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker serves on Netty's native epoll transport where it loads, says so when it starts, and serves as well on
 * Java's NIO when an operator turns native transports off with Netty's own JVM option.
 */
@EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "aarch64"})
class NativeTransportIT {
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
    ArkHttp http = BrokerUnderTest.at(broker.base).first();
    Response created = http.postJson("/questions",
        "{\"recipient\":\"ark://users/jane\",\"sender\":\"ark://agents/a\",\"content\":\"Deploy?\"}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    Response answered = http.send(http.request("/questions/" + created.json().getString("id"))
        .header("Content-Type", "application/json").method("PATCH", HttpRequest.BodyPublishers.ofString("{\"response\":\"yes\"}")));
    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(answered.json().getString("response")).isEqualTo("yes");
  }
}
