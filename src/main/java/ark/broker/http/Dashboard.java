package ark.broker.http;

import ark.broker.auth.Authenticators;
import ark.broker.auth.DashboardSignIn;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
/**
 * What the dashboard page needs from the server besides the API: how it may sign people in ({@code GET
 * /auth/config}, asked before anyone is signed in) and the headers its files are served with. The page keeps a
 * bearer token, so no script but its own may run in it, it talks to nothing but this API and the issuer, and no
 * other site may frame it.
 */
final class Dashboard {
  static final String CONFIG_PATH = "/auth/config";

  private final JsonObject config;
  private final String contentSecurityPolicy;

  Dashboard(Authenticators authenticators) {
    config = new JsonObject();
    authenticators.dashboardSignIn().ifPresent(signIn -> config.put("oidc", signIn.toJson()));
    String issuerOrigin = authenticators.dashboardSignIn().map(DashboardSignIn::issuerOrigin).orElse("");
    contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        + "connect-src 'self'" + (issuerOrigin.isEmpty() ? "" : " " + issuerOrigin)
        + "; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
  }

  /** {@code GET /auth/config}: {@code {"oidc": {"issuer", "clientId", "scopes"}}}, or {@code {}} without OIDC sign-in. */
  void config(RoutingContext ctx) {
    ctx.json(config);
  }

  void secureHeaders(RoutingContext ctx) {
    ctx.response()
        .putHeader("Content-Security-Policy", contentSecurityPolicy)
        // The page's address carries the authorization code when the issuer sends people back.
        .putHeader("Referrer-Policy", "no-referrer")
        .putHeader("X-Content-Type-Options", "nosniff");
    ctx.next();
  }
}
