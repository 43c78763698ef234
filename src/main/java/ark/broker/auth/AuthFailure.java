package ark.broker.auth;

/**
 * Why a request has no principal, as an HTTP status and a message safe to show the caller and to log: it never
 * holds the token or any part of it.
 *
 * <ul>
 *   <li>401: no token, an unknown one, or one that fails a check (expired, other issuer or audience, bad
 *       signature); {@link #challenge} builds the {@code WWW-Authenticate} header (RFC 6750, RFC 9728).</li>
 *   <li>400: a malformed request, such as an agent name that is no name.</li>
 *   <li>403: a valid principal asking for what it may not have, such as acting for another agent, or a token
 *       without the scopes the broker requires ({@code insufficient_scope}, with a challenge naming them).</li>
 *   <li>503: the identity provider's keys could not be fetched; not the caller's fault, so not a 401 that
 *       would make it drop a good token.</li>
 * </ul>
 */
public final class AuthFailure extends RuntimeException {
  /** RFC 6750 error codes, for the challenge; {@code null} when the request had no credentials at all. */
  public static final String INVALID_TOKEN = "invalid_token";
  public static final String INVALID_REQUEST = "invalid_request";
  public static final String INSUFFICIENT_SCOPE = "insufficient_scope";

  private final int status;
  private final String error;
  /** For {@code insufficient_scope}: the scopes a token needs, space-separated; else null. */
  private final String scope;

  private AuthFailure(int status, String error, String message) {
    this(status, error, message, null);
  }

  private AuthFailure(int status, String error, String message, String scope) {
    // No stack trace: these are answers, not bugs, and they can come at the rate of requests.
    super(message, null, false, false);
    this.status = status;
    this.error = error;
    this.scope = scope;
  }

  /** No credentials: RFC 6750 says to answer with the challenge alone, without an error code. */
  static AuthFailure missing(String message) {
    return new AuthFailure(401, null, message);
  }

  static AuthFailure invalidToken(String message) {
    return new AuthFailure(401, INVALID_TOKEN, message);
  }

  static AuthFailure badRequest(String message) {
    return new AuthFailure(400, INVALID_REQUEST, message);
  }

  public static AuthFailure forbidden(String message) {
    return new AuthFailure(403, null, message);
  }

  /** A valid token that lacks scopes the broker requires (RFC 6750 §3.1): 403, with the scopes to ask for. */
  static AuthFailure insufficientScope(String message, String requiredScopes) {
    return new AuthFailure(403, INSUFFICIENT_SCOPE, message, requiredScopes);
  }

  static AuthFailure unavailable(String message) {
    return new AuthFailure(503, null, message);
  }

  /** 400, 401, 403 or 503. */
  public int status() {
    return status;
  }

  /** {@code invalid_token}, {@code invalid_request}, {@code insufficient_scope} or {@code null}. */
  public String error() {
    return error;
  }

  /**
   * The {@code WWW-Authenticate} value for a 401 or 400: {@code Bearer resource_metadata="...", error="...",
   * error_description="..."}; for a 403 {@code insufficient_scope} the MCP authorization spec's {@code Bearer
   * error="insufficient_scope", scope="...", resource_metadata="...", error_description="..."}, so the client can
   * ask for a token with those scopes; {@code null} for statuses that carry no challenge.
   *
   * @param resourceMetadataUrl the RFC 9728 metadata URL, or {@code null} to leave it out
   */
  public String challenge(String resourceMetadataUrl) {
    if (INSUFFICIENT_SCOPE.equals(error)) {
      return "Bearer error=\"" + error + "\", scope=\"" + quotable(scope) + "\""
          + (resourceMetadataUrl == null ? "" : ", resource_metadata=\"" + quotable(resourceMetadataUrl) + "\"")
          + ", error_description=\"" + quotable(getMessage()) + "\"";
    }
    if (status != 401 && status != 400) {
      return null;
    }
    StringBuilder value = new StringBuilder("Bearer");
    String separator = " ";
    if (resourceMetadataUrl != null) {
      value.append(separator).append("resource_metadata=\"").append(quotable(resourceMetadataUrl)).append('"');
      separator = ", ";
    }
    if (error != null) {
      value.append(separator).append("error=\"").append(error).append("\", error_description=\"")
          .append(quotable(getMessage())).append('"');
    }
    return value.toString();
  }

  /** RFC 6750 allows only printable ASCII other than {@code "} and {@code \} inside these quoted strings. */
  private static String quotable(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      out.append(c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' ? c : '?');
    }
    return out.toString();
  }
}
