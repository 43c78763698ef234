package ark.broker.auth;

import ark.broker.ConfigLoader;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static ark.broker.auth.AuthStartup.Outcome.AUTHENTICATE;
import static ark.broker.auth.AuthStartup.Outcome.OPEN;
import static ark.broker.auth.AuthStartup.Outcome.REFUSE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AuthStartupTest {
  private static final Map<String, String> LOOPBACK = hosts("127.0.0.1", "localhost");
  private static final Map<String, String> EXPOSED = hosts("0.0.0.0", "127.0.0.1");

  @Test
  void theDefaultsRunOpenOnLoopbackWithAWarning() {
    AuthSettings defaults = AuthSettings.from(ConfigLoader.bundledDefaults().getJsonObject("auth"));

    AuthStartup decision = AuthStartup.decide(defaults, LOOPBACK);

    assertThat(defaults.mode()).isEqualTo(AuthMode.AUTO);
    assertThat(defaults.configured()).isFalse();
    assertThat(decision.outcome()).isEqualTo(OPEN);
    assertThat(decision.message()).contains("no authentication is configured").contains("loopback")
        .contains("http.host=127.0.0.1");
  }

  @Test
  void unconfiguredOnAnyOtherAddressRefusesNamingTheSettings() {
    AuthSettings defaults = settings("auto", Map.of());

    AuthStartup decision = AuthStartup.decide(defaults, EXPOSED);

    assertThat(decision.outcome()).isEqualTo(REFUSE);
    assertThat(decision.message()).contains("http.host=0.0.0.0").doesNotContain("mcp.host=")
        .contains("auth.tokensFile (AUTH_TOKENS_FILE)").contains("auth.oidc.issuer").contains("AUTH_MODE=none");
    assertThat(AuthStartup.decide(defaults, hosts("127.0.0.1", "broker.example.com")).outcome()).isEqualTo(REFUSE);
  }

  @Test
  void configuredAuthAuthenticatesWherever() {
    assertThat(AuthStartup.decide(settings("auto", Map.of("tokensFile", "/run/tokens.json")), EXPOSED).outcome())
        .isEqualTo(AUTHENTICATE);
    assertThat(AuthStartup.decide(settings("required", Map.of("tokensFile", "/run/tokens.json")), LOOPBACK).outcome())
        .isEqualTo(AUTHENTICATE);
    assertThat(AuthStartup.decide(settings("auto", oidc()), EXPOSED).outcome()).isEqualTo(AUTHENTICATE);
  }

  @Test
  void requiredRefusesWithoutAuthEvenOnLoopback() {
    AuthStartup decision = AuthStartup.decide(settings("required", Map.of()), LOOPBACK);

    assertThat(decision.outcome()).isEqualTo(REFUSE);
    assertThat(decision.message()).contains("auth.mode is required");
  }

  @Test
  void noneRunsOpenAnywhereOnPurpose() {
    assertThat(AuthStartup.decide(settings("none", Map.of()), EXPOSED).outcome()).isEqualTo(OPEN);
    AuthStartup ignoring = AuthStartup.decide(settings("none", Map.of("tokensFile", "/run/tokens.json")), EXPOSED);
    assertThat(ignoring.outcome()).isEqualTo(OPEN);
    assertThat(ignoring.message()).contains("ignored");
  }

  @Test
  void onlyLiteralLoopbackAddressesCount() {
    assertThat(List.of("127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1", " 127.0.0.1 "))
        .allMatch(AuthStartup::isLoopback);
    assertThat(List.of("0.0.0.0", "::", "[::]", "10.0.0.5", "192.168.1.1", "broker.local", "localhost.evil.com",
        "127.0.0.1.nip.io", "", "999.0.0.1", "::ffff:10.0.0.1", "not:an:address"))
        .noneMatch(AuthStartup::isLoopback);
  }

  @Test
  void settingsAreReadFromTheAuthSectionAndChecked() {
    AuthSettings settings = settings("required", Map.of("tokensFile", " /run/tokens.json ", "tokensCheckMillis", 2500));
    assertThat(settings.tokensFile()).contains(Path.of("/run/tokens.json"));
    assertThat(settings.tokensCheck()).isEqualTo(Duration.ofMillis(2500));

    AuthSettings withOidc = settings("auto", oidc());
    assertThat(withOidc.oidc().adminTeams()).containsExactly("ark://teams/ops", "ark://teams/sre");
    assertThat(withOidc.oidc().clockSkew()).isEqualTo(Duration.ofSeconds(60));

    assertThatThrownBy(() -> settings("sometimes", Map.of())).hasMessageContaining("auth.mode");
    JsonObject incomplete = defaults();
    incomplete.getJsonObject("oidc").put("issuer", "https://idp.example.com");
    assertThatThrownBy(() -> AuthSettings.from(incomplete)).hasMessageContaining("auth.oidc.audience");
    JsonObject badUrl = defaults().put("oidc", defaults().getJsonObject("oidc").copy().mergeIn(new JsonObject(oidc())))
        .copy();
    badUrl.getJsonObject("oidc").put("jwksUrl", "file:///etc/passwd");
    assertThatThrownBy(() -> AuthSettings.from(badUrl)).hasMessageContaining("auth.oidc.jwksUrl");
  }

  @Test
  void environmentVariablesReachTheSettings() {
    JsonObject config = ConfigLoader.applyEnvironment(ConfigLoader.bundledDefaults(), Map.of(
        "AUTH_TOKENS_FILE", "/run/secrets/tokens.json", "AUTH_MODE", "required", "AUTH_OIDC_ADMIN_TEAMS", "ops, sre"));

    AuthSettings settings = AuthSettings.from(config.getJsonObject("auth"));

    assertThat(settings.tokensFile()).contains(Path.of("/run/secrets/tokens.json"));
    assertThat(settings.mode()).isEqualTo(AuthMode.REQUIRED);
    assertThat(settings.oidc().adminTeams()).containsExactly("ark://teams/ops", "ark://teams/sre");
  }

  private static Map<String, Object> oidc() {
    return Map.of("issuer", "https://idp.example.com/realms/ark", "audience", "ark-broker",
        "jwksUrl", "https://idp.example.com/realms/ark/protocol/openid-connect/certs", "adminTeams",
        List.of("ops", "ark://teams/sre"));
  }

  private static JsonObject defaults() {
    return ConfigLoader.bundledDefaults().getJsonObject("auth").copy();
  }

  /** The bundled defaults with these top-level or (for OIDC keys) auth.oidc keys changed. */
  private static AuthSettings settings(String mode, Map<String, Object> changes) {
    JsonObject auth = defaults().put("mode", mode);
    changes.forEach((key, value) -> {
      if (auth.getJsonObject("oidc").containsKey(key)) {
        auth.getJsonObject("oidc").put(key, value instanceof List<?> list ? new io.vertx.core.json.JsonArray(list) : value);
      } else {
        auth.put(key, value);
      }
    });
    return AuthSettings.from(auth);
  }

  private static Map<String, String> hosts(String http, String mcp) {
    Map<String, String> hosts = new LinkedHashMap<>();
    hosts.put("http.host", http);
    hosts.put("mcp.host", mcp);
    return hosts;
  }
}
