package ark.broker.http;

import ark.broker.auth.AuthFailure;
import ark.broker.bus.StoreFailure;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every error of Ark's broker routes leaves through here, in upstream's envelope
 * {@code {"error":{"code","message","requestId"}}} with its string codes, so Ark's callers and the dashboard read
 * them as they read upstream's; statuses upstream never answers (413, 401, 503) get codes of the same kind.
 */
final class ArkErrors {
  private static final Logger LOG = LoggerFactory.getLogger(ArkErrors.class);

  private ArkErrors() {
  }

  static void handle(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (failure instanceof ArkProblem problem) {
      send(ctx, problem.status, problem.code, problem.getMessage());
      return;
    }
    if (failure instanceof HttpClosedException) {
      // The client left while its body was read: nobody to answer, and nothing of the server's to report.
      return;
    }
    if (failure instanceof HttpProblem problem) {
      // What the REST routes share with these, such as the host check.
      send(ctx, problem.status, code(problem.status), problem.getMessage());
      return;
    }
    if (failure == null) {
      int status = ctx.statusCode() > 0 ? ctx.statusCode() : 500;
      send(ctx, status, code(status), switch (status) {
        case 404 -> "Not found";
        case 405 -> ctx.request().method() + " is not allowed on " + ctx.request().path();
        case 413 -> "request body is larger than the limit";
        default -> "request failed";
      });
      return;
    }
    StoreFailure refused = StoreFailure.of(failure);
    if (refused.reason() == StoreFailure.Reason.INTERNAL) {
      LOG.error("Request {} {} failed [request {}]", ctx.request().method(), ctx.request().path(),
          RequestLog.requestId(ctx), failure);
      send(ctx, 500, "INTERNAL_ERROR", "Internal server error");
      return;
    }
    if (failure instanceof AuthFailure auth && auth.status() == 401) {
      String challenge = auth.challenge(ProtectedResource.metadataUrl(ctx));
      if (challenge != null) {
        ctx.response().putHeader("WWW-Authenticate", challenge);
      }
    }
    if (refused.retryAfterSeconds() > 0) {
      ctx.response().putHeader("Retry-After", Long.toString(refused.retryAfterSeconds()));
    }
    send(ctx, refused.reason().code, code(refused.reason().code), refused.getMessage());
  }

  static void send(RoutingContext ctx, int status, String code, String message) {
    if (ctx.response().headWritten()) {
      ctx.response().reset();
      return;
    }
    ctx.response().setStatusCode(status)
        .putHeader("Content-Type", "application/json; charset=utf-8")
        .end(body(code, message, RequestLog.requestId(ctx)).encode());
  }

  /** The body of a refusal with {@code status}, its code the status's own, before a request id was given. */
  static JsonObject body(int status, String message) {
    return body(code(status), message, null);
  }

  private static JsonObject body(String code, String message, String requestId) {
    JsonObject error = new JsonObject().put("code", code).put("message", message);
    if (requestId != null) {
      error.put("requestId", requestId);
    }
    return new JsonObject().put("error", error);
  }

  private static String code(int status) {
    return switch (status) {
      case 400 -> "VALIDATION_ERROR";
      case 401 -> "UNAUTHORIZED";
      case 403 -> "FORBIDDEN";
      case 404 -> "NOT_FOUND";
      case 405 -> "METHOD_NOT_ALLOWED";
      case 409 -> "CONFLICT";
      case 413 -> "PAYLOAD_TOO_LARGE";
      case 415 -> "UNSUPPORTED_MEDIA_TYPE";
      case 429 -> "TOO_MANY_REQUESTS";
      case 503 -> "SERVICE_UNAVAILABLE";
      default -> status >= 500 ? "INTERNAL_ERROR" : "REQUEST_ERROR";
    };
  }
}
