package ark.broker.auth;

import com.nimbusds.jwt.JWTClaimsSet;
import io.vertx.core.json.JsonArray;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The scopes an OIDC access token must grant ({@code auth.oidc.requiredScopes}), read from {@code scope} (a
 * space-separated string, RFC 8693 and RFC 9068) and {@code scp} (a list, or a string, as some issuers write it).
 * A token lacking one is valid but not enough: 403 {@code insufficient_scope}, not a 401 that would make the
 * client drop it.
 */
final class RequiredScopes {
  private RequiredScopes() {
  }

  /** The configured list, without blanks; a scope may not hold a space, a quote or a backslash (RFC 6749 §3.3). */
  static List<String> parse(JsonArray configured) {
    List<String> scopes = configured.stream().map(String::valueOf).map(String::trim).filter(s -> !s.isEmpty())
        .distinct().toList();
    for (String scope : scopes) {
      if (!scope.chars().allMatch(c -> c == 0x21 || (c >= 0x23 && c <= 0x5b) || (c >= 0x5d && c <= 0x7e))) {
        throw new IllegalArgumentException("auth.oidc.requiredScopes: '" + scope + "' is not a scope (RFC 6749 §3.3)");
      }
    }
    return scopes;
  }

  /** @throws AuthFailure 403 {@code insufficient_scope} when the token lacks one of {@code required} */
  static void check(List<String> required, JWTClaimsSet claims) {
    if (required.isEmpty()) {
      return;
    }
    Set<String> granted = granted(claims);
    List<String> missing = required.stream().filter(scope -> !granted.contains(scope)).toList();
    if (!missing.isEmpty()) {
      throw AuthFailure.insufficientScope("the token lacks the scope " + String.join(" ", missing),
          String.join(" ", required));
    }
  }

  private static Set<String> granted(JWTClaimsSet claims) {
    Set<String> granted = new HashSet<>();
    for (String name : List.of("scope", "scp")) {
      Object value = claims.getClaim(name);
      if (value instanceof String text) {
        granted.addAll(List.of(text.trim().split("\\s+")));
      } else if (value instanceof Collection<?> list) {
        list.stream().filter(String.class::isInstance).map(String.class::cast).forEach(granted::add);
      }
    }
    return granted;
  }
}
