package ark.broker.auth;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Identities;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up decision of {@link AuthStartup} as an operator meets it: the real jar, configured by environment
 * variables, read from its console. {@code AuthStartupTest} covers every case of the decision itself.
 */
class AuthStartupIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir
  Path dir;

  @Test
  void listeningOnEveryAddressWithoutAuthRefusesInOneLineNamingTheSettings() throws Exception {
    // A long warm-up: the refusal must come before it, not after its seconds.
    try (BrokerProcess broker = BrokerProcess.launch(dir.resolve("data"), BrokerProcess.freePort(),
        Map.of("HTTP_HOST", "0.0.0.0", "WARM_UP_SECONDS", "60"))) {
      assertThat(broker.awaitExit(Duration.ofSeconds(30))).isNotZero();

      List<String> lines = lines(broker);
      assertThat(lines).as("the whole output, no stack trace, no warm-up").hasSize(1);
      assertThat(lines.get(0)).contains(" ERROR ").contains("http.host=0.0.0.0")
          .contains("auth.tokensFile (AUTH_TOKENS_FILE)").contains("auth.oidc.issuer")
          .contains("AUTH_MODE=none").doesNotContain("mcp.host");
    }
  }

  @Test
  void authModeNoneRunsOpenOnEveryAddressWithOneWarning() throws Exception {
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), port,
        Map.of("HTTP_HOST", "0.0.0.0", "AUTH_MODE", "none"))) {
      assertThat(whoami(broker, null).body()).contains("\"kind\":\"admin\"").contains("\"method\":\"anonymous\"");
      assertThat(warnings(broker)).singleElement().asString()
          .contains("auth.mode is none").contains("http.host=0.0.0.0");
      assertThat(broker.output()).contains("REST API on http://0.0.0.0:" + port);
    }
  }

  @Test
  void onLoopbackWithoutAuthItRunsOpenWithOneWarning() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), BrokerProcess.freePort(), Map.of())) {
      assertThat(whoami(broker, null).statusCode()).isEqualTo(200);
      assertThat(warnings(broker)).singleElement().asString()
          .contains("no authentication is configured").contains("loopback").contains("AUTH_TOKENS_FILE");
    }
  }

  /** The shape of the Kubernetes deployment: every address, a tokens file mounted from a Secret. */
  @Test
  void withATokensFileItListensOnEveryAddressAndAsksForATokenWithoutWarning() throws Exception {
    Path tokens = dir.resolve("tokens.json");
    Files.writeString(tokens, Identities.tokensFile().encode());
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), BrokerProcess.freePort(),
        Map.of("HTTP_HOST", "0.0.0.0", "MCP_HOST", "0.0.0.0", "AUTH_TOKENS_FILE", tokens.toString()))) {
      HttpResponse<String> anonymous = whoami(broker, null);
      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(anonymous.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(challenge ->
          assertThat(challenge).startsWith("Bearer").contains("resource_metadata="));
      assertThat(new JsonObject(whoami(broker, Identities.HUMAN).body()).getString("name"))
          .isEqualTo(Identities.HUMAN_NAME);

      assertThat(warnings(broker)).isEmpty();
      assertThat(broker.output()).contains("authentication on: 6 static tokens from " + tokens)
          .doesNotContain(Identities.HUMAN).doesNotContain(Identities.sha256(Identities.HUMAN));
    }
  }

  private static HttpResponse<String> whoami(BrokerProcess broker, String token) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(broker.base + "/whoami"));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static List<String> warnings(BrokerProcess broker) throws Exception {
    return lines(broker).stream().filter(line -> line.contains(" WARN ")).toList();
  }

  /**
   * The process's lines, but Vert.x's warnings that a thread was slow: they tell how busy the machine was
   * (two test JVMs and a build on two cores), nothing about the broker.
   */
  private static List<String> lines(BrokerProcess broker) throws Exception {
    return broker.output().lines().filter(line -> !line.isBlank() && !line.contains(" BlockedThreadChecker - ")).toList();
  }
}
