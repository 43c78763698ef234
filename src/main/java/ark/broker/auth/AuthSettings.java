package ark.broker.auth;

import io.vertx.core.json.JsonObject;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The {@code auth} section. Every key has its default in {@code conf/broker.json}, which the configuration
 * loader always puts beneath the user's settings, so nothing here has defaults of its own.
 *
 * @param tokensFile the static tokens file ({@code auth.tokensFile}); empty for none
 * @param tokensCheck how often the tokens file is looked at for changes
 * @param dashboardSignIn the dashboard's own OIDC sign-in, if configured
 * @param clusterNetworks where Ark's in-cluster callers without a token come from
 */
public record AuthSettings(AuthMode mode, Optional<Path> tokensFile, Duration tokensCheck, OidcSettings oidc,
                           Optional<DashboardSignIn> dashboardSignIn, ClusterNetworks clusterNetworks) {

  /** Whether any way to authenticate is configured: a tokens file or an OIDC issuer. */
  public boolean configured() {
    return tokensFile.isPresent() || oidc.configured();
  }

  /** @param auth the {@code auth} section of the configuration */
  public static AuthSettings from(JsonObject auth) {
    String tokensFile = auth.getString("tokensFile").trim();
    long checkMillis = auth.getLong("tokensCheckMillis");
    if (checkMillis < 0) {
      throw new IllegalArgumentException("auth.tokensCheckMillis must not be negative, not " + checkMillis);
    }
    return new AuthSettings(
        AuthMode.parse(auth.getString("mode")),
        tokensFile.isEmpty() ? Optional.empty() : Optional.of(Path.of(tokensFile)),
        Duration.ofMillis(checkMillis),
        OidcSettings.from(auth.getJsonObject("oidc")),
        DashboardSignIn.from(auth.getJsonObject("oidc")),
        ClusterNetworks.of(auth.getJsonArray("clusterNetworks").stream().map(Object::toString).toList()));
  }
}
