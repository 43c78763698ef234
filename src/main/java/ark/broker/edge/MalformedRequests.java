package ark.broker.edge;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * Answers requests the router cannot even look at with 400, before routing: a request line or headers the HTTP
 * codec could not decode, a target that is neither a path nor an absolute URL ({@code *}, {@code mcp}), an HTTP/1.x
 * request without a {@code Host} (whatever its target) or with a malformed one ({@code a@b}, {@code x#y}), an
 * absolute-form target with a malformed authority, a target whose percent-encoding is broken.
 * Without this they surface as errors deep in routing (a 500 with a stack trace in the log), though all of them
 * are the client's mistake; a flood of them writes at most one WARN line per period. Every port of the broker puts
 * it in front of its router.
 *
 * @param errorBody the JSON error body, in the format of the request's routes
 * @param warning the port's WARN line for refused requests
 */
public record MalformedRequests(Handler<HttpServerRequest> next, ConnectionLimits.ErrorBody errorBody,
                               RateLimitedWarning warning)
    implements Handler<HttpServerRequest> {

  @Override
  public void handle(HttpServerRequest request) {
    String problem = problemOf(request);
    if (problem == null) {
      next.handle(request);
      return;
    }
    warning.warn(() -> "Refused a malformed request from " + request.remoteAddress() + ": " + problem);
    request.response()
        .setStatusCode(400)
        .putHeader("Content-Type", "application/json")
        .putHeader("Connection", "close")
        .end(errorBody.of(request, 400, problem));
  }

  /**
   * Whether a request failed while its body was still being read (a broken chunk, a connection reset):
   * the client's doing, worth a 400 and a WARN line rather than a 500 and a stack trace.
   */
  public static boolean failedWhileReading(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    boolean hasBody = request.headers().contains("Transfer-Encoding") || request.headers().contains("Content-Length");
    return hasBody && !request.isEnded();
  }

  private static String problemOf(HttpServerRequest request) {
    if (request.decoderResult().isFailure()) {
      return "the request could not be decoded: " + request.decoderResult().cause().getMessage();
    }
    if (!RequestAuthority.isRoutable(request.uri())) {
      return "the request target must be a path (/...) or an absolute URL";
    }
    String authority = RequestAuthority.problem(request);
    if (authority != null) {
      return authority;
    }
    if (!isPercentEncodingIntact(request.uri())) {
      return "the request target has a broken percent-encoding";
    }
    return null;
  }

  private static boolean isPercentEncodingIntact(String uri) {
    for (int i = uri.indexOf('%'); i >= 0; i = uri.indexOf('%', i + 1)) {
      if (i + 2 >= uri.length() || Character.digit(uri.charAt(i + 1), 16) < 0 || Character.digit(uri.charAt(i + 2), 16) < 0) {
        return false;
      }
    }
    return true;
  }
}
