package ark.broker.auth;

import java.util.regex.Pattern;

/** Reads the token out of an {@code Authorization: Bearer ...} header (RFC 6750 section 2.1). */
final class BearerToken {
  /** Longer than any real access token; bounds the work (hashing, parsing) a stranger can cause. */
  static final int MAX_LENGTH = 16 * 1024;
  /** RFC 6750's b64token: what a bearer token may be made of. */
  private static final Pattern B64TOKEN = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");

  private BearerToken() {
  }

  /** @throws AuthFailure 401 when there is no usable bearer token; the message never quotes the header */
  static String from(String authorization) {
    if (authorization == null || authorization.isBlank()) {
      throw AuthFailure.missing("a bearer token is required");
    }
    String header = authorization.strip();
    int space = header.indexOf(' ');
    if (space < 0 || !header.substring(0, space).equalsIgnoreCase("Bearer")) {
      throw AuthFailure.missing("only Bearer tokens are accepted");
    }
    String token = header.substring(space + 1).strip();
    if (token.isEmpty()) {
      throw AuthFailure.invalidToken("the bearer token is empty");
    }
    if (token.length() > MAX_LENGTH) {
      throw AuthFailure.invalidToken("the bearer token is too long");
    }
    if (!B64TOKEN.matcher(token).matches()) {
      throw AuthFailure.invalidToken("the bearer token has characters a bearer token cannot have");
    }
    return token;
  }
}
