package ark.broker.edge;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.HostAndPort;

import java.util.Locale;

/**
 * The host and port a request is for, as the host checks and the URLs the broker hands out must read it: the
 * authority of an absolute-form request target ({@code GET http://host/path}), which RFC 9112 section 3.2.2 says
 * overrides {@code Host}; else {@code Host} (HTTP/1.x) or {@code :authority} (HTTP/2).
 */
public final class RequestAuthority {
  private RequestAuthority() {
  }

  /** {@code host[:port]} as the client wrote it; null for a request without one or with a malformed one. */
  public static String of(HttpServerRequest request) {
    String target = absoluteFormAuthority(request.uri());
    if (target != null) {
      return isValid(target) ? target : null;
    }
    HostAndPort authority = request.authority();
    return authority == null ? null : authority.host() + (authority.port() > 0 ? ":" + authority.port() : "");
  }

  /**
   * Why the request names no usable authority, or null when it names one: what {@link MalformedRequests} refuses. An
   * HTTP/1.1 request needs a valid {@code Host} even when its target is absolute (RFC 9112 section 3.2), and the
   * router needs one too.
   */
  static String problem(HttpServerRequest request) {
    String target = absoluteFormAuthority(request.uri());
    if (target != null && !isValid(target)) {
      return "the request target's authority is not a valid host[:port]";
    }
    if (request.version() == HttpVersion.HTTP_2) {
      return null;
    }
    String host = request.headers().get("Host");
    if (host == null) {
      return "the Host header is required";
    }
    return isValid(host) ? null : "the Host header is not a valid host[:port]";
  }

  /** Whether the target is one the routes can read: a path ({@code /...}) or an absolute URL naming its authority. */
  static boolean isRoutable(String uri) {
    return uri.startsWith("/") || absoluteFormAuthority(uri) != null;
  }

  /** host[:port] with nothing else: no user information, no path, no spaces, a port that is a port. */
  private static boolean isValid(String authority) {
    return !authority.isEmpty() && authority.indexOf('@') < 0 && HostAndPort.parseAuthority(authority, -1) != null;
  }

  /** The authority of an absolute-form target ({@code scheme://authority/...}), or null for any other form. */
  private static String absoluteFormAuthority(String uri) {
    int scheme = uri.indexOf("://");
    if (scheme <= 0 || uri.charAt(0) == '/' || !uri.substring(0, scheme).toLowerCase(Locale.ROOT).matches("[a-z][a-z0-9+.-]*")) {
      return null;
    }
    int start = scheme + 3;
    int end = start;
    while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
      end++;
    }
    return uri.substring(start, end);
  }
}
