package ark.broker.auth;

import ark.broker.edge.RateLimitedWarning;
import com.nimbusds.jwt.JWTClaimsSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Turns a verified access token's claims into a principal.
 *
 * <ul>
 *   <li>kind: {@code human}, unless {@code auth.oidc.kindClaim} is set and the token's claim says {@code agent}
 *       or {@code service} (so an IdP can mark client-credentials tokens of agents and of Ark's executor); any
 *       other value is refused. Admin comes only from {@code auth.oidc.adminTeams}: one place grants it.</li>
 *   <li>name: {@code ark://users/<nameClaim>} for humans, {@code ark://agents/<nameClaim>} for agents and
 *       services; admins keep the name their kind gives them.</li>
 *   <li>teams: {@code ark://teams/<value>} for each string of {@code auth.oidc.teamsClaim} (a list or one
 *       string); a leading {@code /} (Keycloak group paths) is dropped; values that make no team name are
 *       left out, which grants less, never more.</li>
 *   <li>mayActFor: none. A service that must act for agents uses a static token, whose entry lists them.</li>
 * </ul>
 *
 * <p>The identity provider names its own users, so a user it names like a principal of the tokens file (the static
 * admin, say) would become that principal: such a token is refused, unless {@code auth.oidc.sharedNames} lists the
 * name as one principal that signs in both ways.
 */
final class OidcClaimMapping {
  private static final Logger LOG = LoggerFactory.getLogger(OidcClaimMapping.class);

  private final OidcSettings settings;
  private final Predicate<String> staticName;
  private final RateLimitedWarning collisions = new RateLimitedWarning(LOG);

  /** @param staticName whether the tokens file has a token of that principal name */
  OidcClaimMapping(OidcSettings settings, Predicate<String> staticName) {
    this.settings = settings;
    this.staticName = staticName;
  }

  /** @throws AuthFailure 401 when the claims name no usable principal */
  Grant grant(JWTClaimsSet claims) {
    Object subject = claim(claims, settings.nameClaim());
    if (!(subject instanceof String value) || value.isBlank()) {
      throw AuthFailure.invalidToken("the token has no " + settings.nameClaim() + " claim");
    }
    PrincipalKind kind = kind(claims);
    List<String> teams = teams(claims);
    String prefix = kind == PrincipalKind.HUMAN ? Principal.USERS : Principal.AGENTS;
    String name = prefix + value;
    if (teams.stream().anyMatch(settings.adminTeams()::contains)) {
      kind = PrincipalKind.ADMIN;
    }
    Principal principal;
    try {
      principal = new Principal(kind, name, teams, AuthMethod.OIDC);
    } catch (IllegalArgumentException e) {
      throw AuthFailure.invalidToken("the token's " + settings.nameClaim() + " claim makes no usable name");
    }
    if (staticName.test(name) && !settings.sharedNames().contains(name)) {
      collisions.warn(() -> "Refused an OIDC token for " + name + ": the tokens file has a token of that name, so it "
          + "would act as that principal; if both are the same, list it in auth.oidc.sharedNames "
          + "(AUTH_OIDC_SHARED_NAMES)");
      throw AuthFailure.invalidToken("the token's " + settings.nameClaim() + " names a principal of this broker's own");
    }
    return Grant.of(principal);
  }

  private PrincipalKind kind(JWTClaimsSet claims) {
    if (settings.kindClaim().isEmpty()) {
      return PrincipalKind.HUMAN;
    }
    Object value = claim(claims, settings.kindClaim());
    if (value == null) {
      return PrincipalKind.HUMAN;
    }
    if ("agent".equals(value)) {
      return PrincipalKind.AGENT;
    }
    if ("service".equals(value)) {
      return PrincipalKind.SERVICE;
    }
    if ("human".equals(value)) {
      return PrincipalKind.HUMAN;
    }
    throw AuthFailure.invalidToken("the token's " + settings.kindClaim() + " claim must be agent, service or human");
  }

  private List<String> teams(JWTClaimsSet claims) {
    if (settings.teamsClaim().isEmpty()) {
      return List.of();
    }
    Object value = claim(claims, settings.teamsClaim());
    Collection<?> values = value instanceof Collection<?> list ? list : value == null ? List.of() : List.of(value);
    List<String> teams = new ArrayList<>();
    for (Object item : values) {
      if (item instanceof String text) {
        String team = Principal.TEAMS + (text.startsWith("/") ? text.substring(1) : text);
        try {
          Principal.requireUri("a team", team, Principal.TEAMS);
          if (!teams.contains(team)) {
            teams.add(team);
          }
        } catch (IllegalArgumentException e) {
          // not a team name the broker can address: left out
        }
      }
    }
    return teams;
  }

  /** The claim of that name, else (for a dotted name) the value at that path through nested objects. */
  static Object claim(JWTClaimsSet claims, String name) {
    Object whole = claims.getClaim(name);
    if (whole != null || !name.contains(".")) {
      return whole;
    }
    Object node = claims.getClaims();
    for (String part : name.split("\\.")) {
      if (!(node instanceof Map<?, ?> map)) {
        return null;
      }
      node = map.get(part);
    }
    return node;
  }
}
