package ark.broker.auth;

import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Where OIDC / OAuth 2.1 access tokens come from and how their claims become a principal ({@code auth.oidc}).
 *
 * @param issuer the {@code iss} tokens must carry; empty turns OIDC off
 * @param audience the {@code aud} tokens must include: this broker (RFC 8707), so tokens for other services fail
 * @param jwksUrl where the issuer publishes its public keys
 * @param nameClaim the claim naming the principal ({@code ark://users/<value>}, {@code ark://agents/<value>})
 * @param teamsClaim the claim listing its teams ({@code ark://teams/<value>}); a dotted path reaches into
 *     objects ({@code realm_access.roles}) when no claim has the whole name
 * @param kindClaim a claim whose value {@code agent}, {@code service} or {@code human} sets the kind; empty (or
 *     the claim absent) makes every token a human's
 * @param adminTeams teams ({@code ark://teams/<name>}) whose members are admins
 * @param clockSkew how far {@code exp} and {@code nbf} may be off, for clocks that differ a little
 * @param requiredScopes scopes every token must grant ({@code scope} or {@code scp}), else 403
 *     {@code insufficient_scope}; empty for none
 * @param sharedNames principal names an OIDC token may map to although the tokens file has a token of that name
 *     (the same person or program, signing in both ways); any other such token is refused
 */
public record OidcSettings(String issuer, String audience, String jwksUrl, String nameClaim, String teamsClaim,
                           String kindClaim, List<String> adminTeams, Duration clockSkew, List<String> requiredScopes,
                           List<String> sharedNames) {

  public OidcSettings {
    adminTeams = List.copyOf(adminTeams);
    requiredScopes = List.copyOf(requiredScopes);
    sharedNames = List.copyOf(sharedNames);
  }

  public boolean configured() {
    return !issuer.isEmpty();
  }

  /** @param oidc the {@code auth.oidc} section */
  public static OidcSettings from(JsonObject oidc) {
    String issuer = oidc.getString("issuer").trim();
    String audience = oidc.getString("audience").trim();
    String jwksUrl = oidc.getString("jwksUrl").trim();
    String nameClaim = oidc.getString("nameClaim").trim();
    long skewSeconds = oidc.getLong("clockSkewSeconds");
    List<String> adminTeams = oidc.getJsonArray("adminTeams").stream().map(String::valueOf).map(String::trim)
        .filter(team -> !team.isEmpty()).map(OidcSettings::team).toList();
    if (!issuer.isEmpty()) {
      if (audience.isEmpty() || jwksUrl.isEmpty() || nameClaim.isEmpty()) {
        throw new IllegalArgumentException("auth.oidc.issuer is set, so auth.oidc.audience (AUTH_OIDC_AUDIENCE), "
            + "auth.oidc.jwksUrl (AUTH_OIDC_JWKS_URL) and auth.oidc.nameClaim must be set too");
      }
      requireHttpUrl(jwksUrl);
    }
    if (skewSeconds < 0 || skewSeconds > 600) {
      throw new IllegalArgumentException("auth.oidc.clockSkewSeconds must be between 0 and 600, not " + skewSeconds);
    }
    List<String> sharedNames = oidc.getJsonArray("sharedNames").stream().map(String::valueOf).map(String::trim)
        .filter(name -> !name.isEmpty()).map(OidcSettings::sharedName).toList();
    return new OidcSettings(issuer, audience, jwksUrl, nameClaim, oidc.getString("teamsClaim").trim(),
        oidc.getString("kindClaim").trim(), adminTeams, Duration.ofSeconds(skewSeconds),
        RequiredScopes.parse(oidc.getJsonArray("requiredScopes")), sharedNames);
  }

  /** A team as configured, bare ({@code ops}) or in full ({@code ark://teams/ops}). */
  private static String team(String configured) {
    String team = configured.startsWith("ark://") ? configured : Principal.TEAMS + configured;
    try {
      return Principal.requireUri("auth.oidc.adminTeams", team, Principal.TEAMS);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("auth.oidc.adminTeams: " + e.getMessage(), e);
    }
  }

  /** A name as an OIDC token maps to one: {@code ark://users/<name>} or {@code ark://agents/<name>}. */
  private static String sharedName(String name) {
    try {
      return Principal.requireUri("auth.oidc.sharedNames", name, name.startsWith(Principal.AGENTS) ? Principal.AGENTS
          : Principal.USERS);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("auth.oidc.sharedNames: " + e.getMessage(), e);
    }
  }

  private static void requireHttpUrl(String url) {
    try {
      URI uri = URI.create(url);
      if (!("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) || uri.getHost() == null) {
        throw new IllegalArgumentException("not http(s)");
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("auth.oidc.jwksUrl must be an http(s) URL, not '" + url + "'", e);
    }
  }
}
