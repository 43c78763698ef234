package ark.broker.http;

import ark.broker.bus.StoreFailure;
import ark.broker.edge.MalformedRequests;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Every REST error leaves through here, as {@code {"error":{"code","reason","message","requestId"}}}. */
final class ErrorResponses {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorResponses.class);

  private ErrorResponses() {
  }

  /** Maps a failed request (a thrown or replied failure, or a status vertx-web chose) to its error. */
  static void handle(RoutingContext ctx) {
    if (ArkRoutes.owns(ctx.request().path())) {
      ArkErrors.handle(ctx);
      return;
    }
    Throwable failure = ctx.failure();
    StoreFailure.Reason reason = failure == null ? null : StoreFailure.of(failure).reason();
    int status;
    String message;
    if (failure instanceof HttpProblem problem) {
      status = problem.status;
      message = problem.getMessage();
    } else if (failure instanceof JsonProcessingException json) {
      status = 400;
      message = "request body is not valid JSON: " + json.getOriginalMessage();
    } else if (reason != null && reason != StoreFailure.Reason.INTERNAL) {
      status = reason.code;
      message = failure.getMessage();
      long retryAfter = StoreFailure.of(failure).retryAfterSeconds();
      if (retryAfter > 0) {
        ctx.response().putHeader("Retry-After", Long.toString(retryAfter));
      }
    } else if (failure != null && MalformedRequests.failedWhileReading(ctx)) {
      status = 400;
      message = "the request could not be read: " + failure.getMessage();
      LOG.warn("Refused {} {}: {} [request {}]", ctx.request().method(), ctx.request().path(), message,
          RequestLog.requestId(ctx));
    } else if (failure != null) {
      status = 500;
      message = "internal error";
      LOG.error("Request {} {} failed [request {}]", ctx.request().method(), ctx.request().path(),
          RequestLog.requestId(ctx), failure);
    } else {
      status = ctx.statusCode() > 0 ? ctx.statusCode() : 500;
      message = defaultMessage(status, ctx);
    }
    send(ctx, status, message);
  }

  static void send(RoutingContext ctx, int status, String message) {
    if (ctx.response().headWritten()) {
      ctx.response().reset();
      return;
    }
    ctx.response()
        .setStatusCode(status)
        .putHeader("Content-Type", "application/json")
        .end(body(status, message, RequestLog.requestId(ctx)).encode());
  }

  /** A refusal at the port's edge, before routing, in the envelope of the routes the request is for. */
  static String body(HttpServerRequest request, int status, String message) {
    String path = request.path();
    return (path != null && ArkRoutes.owns(path) ? ArkErrors.body(status, message) : body(status, message, null)).encode();
  }

  static JsonObject body(int status, String message, String requestId) {
    return new JsonObject().put("error", new JsonObject()
        .put("code", status)
        .put("reason", reason(status))
        .put("message", message)
        .put("requestId", requestId));
  }

  private static String defaultMessage(int status, RoutingContext ctx) {
    return switch (status) {
      case 404 -> "no such resource: " + ctx.request().path();
      case 405 -> ctx.request().method() + " is not allowed on " + ctx.request().path();
      case 413 -> "request body is larger than the limit";
      case 415 -> "request body must be application/json";
      default -> "request failed";
    };
  }

  static String reason(int status) {
    return switch (status) {
      case 400 -> "BadRequest";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "NotFound";
      case 405 -> "MethodNotAllowed";
      case 409 -> "Conflict";
      case 410 -> "Expired";
      case 413 -> "PayloadTooLarge";
      case 414 -> "URITooLong";
      case 415 -> "UnsupportedMediaType";
      case 429 -> "TooManyRequests";
      case 431 -> "RequestHeaderFieldsTooLarge";
      case 502 -> "BadGateway";
      case 503 -> "Unavailable";
      default -> "InternalError";
    };
  }
}
