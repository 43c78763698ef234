package ark.broker.auth;

import ark.broker.ConfigLoader;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code auth.oidc.dashboardClientId} and {@code dashboardScopes}: the dashboard's own sign-in at the issuer. */
class DashboardSignInTest {
  private static final String ISSUER = "https://idp.example.com/realms/ark";

  @Test
  void withoutAClientIdTheDashboardOffersOnlyAPastedToken() {
    JsonObject auth = ConfigLoader.bundledDefaults().getJsonObject("auth");

    assertThat(AuthSettings.from(auth).dashboardSignIn()).isEmpty();
    assertThat(Authenticators.open().dashboardSignIn()).isEmpty();
  }

  @Test
  void aClientIdOffersSignInAtTheIssuerFromTheEnvironment() {
    JsonObject config = ConfigLoader.applyEnvironment(ConfigLoader.bundledDefaults(), Map.of(
        "AUTH_OIDC_ISSUER", ISSUER, "AUTH_OIDC_AUDIENCE", "ark-broker", "AUTH_OIDC_JWKS_URL", ISSUER + "/certs",
        "AUTH_OIDC_DASHBOARD_CLIENT_ID", "ark-dashboard", "AUTH_OIDC_DASHBOARD_SCOPES", "openid, ark-broker"));

    DashboardSignIn signIn = AuthSettings.from(config.getJsonObject("auth")).dashboardSignIn().orElseThrow();

    assertThat(signIn).isEqualTo(new DashboardSignIn(ISSUER, "ark-dashboard", List.of("openid", "ark-broker")));
    assertThat(signIn.issuerOrigin()).isEqualTo("https://idp.example.com");
    assertThat(signIn.toJson()).isEqualTo(new JsonObject().put("issuer", ISSUER).put("clientId", "ark-dashboard")
        .put("scopes", new JsonArray().add("openid").add("ark-broker")));
  }

  @Test
  void aClientIdNeedsAnIssuerAndScopesMustBeScopes() {
    assertThatThrownBy(() -> DashboardSignIn.from(oidc("", "openid")))
        .hasMessageContaining("auth.oidc.dashboardClientId is set, so auth.oidc.issuer");
    assertThatThrownBy(() -> DashboardSignIn.from(oidc("not a url", "openid")))
        .hasMessageContaining("must be the issuer's http(s) URL");
    assertThatThrownBy(() -> DashboardSignIn.from(oidc(ISSUER, "openid profile")))
        .hasMessage("auth.oidc.dashboardScopes: 'openid profile' is not an OAuth scope");
  }

  private static JsonObject oidc(String issuer, String scope) {
    return ConfigLoader.bundledDefaults().getJsonObject("auth").getJsonObject("oidc").copy()
        .put("issuer", issuer).put("dashboardClientId", "ark-dashboard").put("dashboardScopes", new JsonArray().add(scope));
  }
}
