package ark.broker.auth;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How the dashboard signs people in at the OIDC issuer itself: the authorization-code flow with PKCE, as a public
 * client ({@code auth.oidc.dashboardClientId}, {@code auth.oidc.dashboardScopes}). Nothing in it is secret: the
 * page fetches it before anyone signs in.
 */
public record DashboardSignIn(String issuer, String clientId, List<String> scopes) {
  /** A scope token of RFC 6749, section 3.3. */
  private static final Pattern SCOPE = Pattern.compile("[\\x21\\x23-\\x5B\\x5D-\\x7E]+");

  public DashboardSignIn {
    scopes = List.copyOf(scopes);
  }

  /**
   * @param oidc the {@code auth.oidc} section
   * @return empty without a client id: the dashboard then offers only a pasted token
   */
  static Optional<DashboardSignIn> from(JsonObject oidc) {
    String clientId = oidc.getString("dashboardClientId").trim();
    List<String> scopes = oidc.getJsonArray("dashboardScopes").stream().map(String::valueOf).map(String::trim)
        .filter(scope -> !scope.isEmpty()).toList();
    for (String scope : scopes) {
      if (!SCOPE.matcher(scope).matches()) {
        throw new IllegalArgumentException("auth.oidc.dashboardScopes: '" + scope + "' is not an OAuth scope");
      }
    }
    if (clientId.isEmpty()) {
      return Optional.empty();
    }
    String issuer = oidc.getString("issuer").trim();
    if (issuer.isEmpty()) {
      throw new IllegalArgumentException("auth.oidc.dashboardClientId is set, so auth.oidc.issuer (AUTH_OIDC_ISSUER) "
          + "must be set too: the dashboard signs in there");
    }
    requireHttpUrl(issuer);
    return Optional.of(new DashboardSignIn(issuer, clientId, scopes));
  }

  /** Where the page fetches the issuer's discovery document and tokens: {@code scheme://host[:port]}. */
  public String issuerOrigin() {
    URI uri = URI.create(issuer);
    return uri.getScheme() + "://" + uri.getRawAuthority();
  }

  private static void requireHttpUrl(String issuer) {
    URI uri;
    try {
      uri = URI.create(issuer);
    } catch (IllegalArgumentException e) {
      uri = null;
    }
    if (uri == null || !("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) || uri.getHost() == null) {
      throw new IllegalArgumentException("auth.oidc.dashboardClientId is set, so auth.oidc.issuer must be the "
          + "issuer's http(s) URL, not '" + issuer + "'");
    }
  }

  public JsonObject toJson() {
    return new JsonObject().put("issuer", issuer).put("clientId", clientId).put("scopes", new JsonArray(scopes));
  }
}
