package ark.broker.http;

import ark.broker.access.ArkBrokerAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.ItemPage;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;

/**
 * How every route of Ark's broker is served: under an allowed host, with a principal (a token, or Ark's
 * in-cluster caller from a trusted network), bodies decoded within the configured limits ({@link ArkBodyReader}), and
 * every refusal in upstream's envelope. Also the bodies they share: a page of items, a JSON answer.
 */
final class ArkRoutes {
  /** The paths the routes of Ark's broker live under; their refusals take upstream's envelope. */
  private static final List<String> PREFIXES = List.of("/messages", "/conversations", "/memory-status", "/queries/",
      "/stream", "/events", "/sessions", "/traces", "/v1/traces");

  private final HostCheck hosts;
  private final Authentication authentication;
  private final ArkApiSettings settings;
  private final ArkBodyReader bodies;
  private final ArkJson json;

  /** @param decoding where bodies too large or compressed to decode on the event loop are decoded */
  ArkRoutes(HostCheck hosts, Authentication authentication, ArkApiSettings settings, WorkerExecutor decoding) {
    this.hosts = hosts;
    this.authentication = authentication;
    this.settings = settings;
    this.bodies = new ArkBodyReader(settings.bodyLimitBytes(), decoding);
    this.json = new ArkJson(settings.maxJsonDepth());
  }

  /** JSON as these routes read it from their callers. */
  ArkJson json() {
    return json;
  }

  /** Whether a request is for one of these routes, so its refusal, whatever refused it, takes their envelope. */
  static boolean owns(String path) {
    return PREFIXES.stream().anyMatch(prefix -> path.equals(prefix) || path.startsWith(prefix.endsWith("/")
        ? prefix : prefix + "/"));
  }

  void get(Router router, String path, Handler<RoutingContext> handler) {
    serve(router.get(path), handler);
  }

  void delete(Router router, String path, Handler<RoutingContext> handler) {
    serve(router.delete(path), handler);
  }

  /**
   * A purge of a whole store: an admin's only, and none while {@code arkApi.allowPurges} is off (405, as upstream,
   * which is removing these routes, will answer).
   */
  void purge(Router router, String path, String allow, Handler<RoutingContext> handler) {
    serve(router.delete(path), ctx -> {
      if (!settings.allowPurges()) {
        ctx.response().putHeader("Allow", allow);
        ctx.fail(new ArkProblem(405, "METHOD_NOT_ALLOWED", "this broker does not purge whole stores"
            + " (arkApi.allowPurges is off); delete one Query's or one conversation's data instead"));
        return;
      }
      try {
        ArkBrokerAccess.requirePurge(actor(ctx));
      } catch (RuntimeException refused) {
        ctx.fail(refused);
        return;
      }
      ctx.next();
    }, handler);
  }

  /** A POST whose body the handler reads itself as sent, if at all (paused until it does). */
  void post(Router router, String path, Handler<RoutingContext> handler) {
    // Not held against the budget: Ark's executors keep such posts open for a whole answer, holding a line at a time.
    serve(router.post(path), ArkBodyReader::asSent, handler);
  }

  /** A POST with a JSON object for a body, read and parsed before the handler runs ({@link ArkBodies#decoded}). */
  void postJson(Router router, String path, Handler<RoutingContext> handler) {
    postDecoded(router, path, (type, body) -> ArkBodies.parse(json, type, body), handler);
  }

  /** A POST whose body is read whole and decoded by {@code decoder} before the handler runs. */
  <T> void postDecoded(Router router, String path, ArkBodyReader.Decoder<T> decoder, Handler<RoutingContext> handler) {
    Handler<RoutingContext> reading = bodies.decoding(decoder);
    serve(router.post(path), ctx -> {
      if (holding(ctx, bodies.mostHeld(ctx.request()))) {
        reading.handle(ctx);
      }
    }, handler);
  }

  /**
   * Holds {@code bytes} of the process's budget for what clients hold while the request is served; when they do not
   * fit, the request is refused before its body is read.
   */
  private boolean holding(RoutingContext ctx, long bytes) {
    HeldBytes budget = HeldBytes.shared(ctx.vertx(), settings.maxHeldBytes());
    if (!budget.tryHold(bytes)) {
      ctx.fail(new ArkProblem(503, "SERVICE_UNAVAILABLE", "this broker is reading as many request bodies and holding"
          + " as many unread bytes for its clients as it may; try again later"));
      return false;
    }
    ctx.addEndHandler(served -> budget.release(bytes));
    return true;
  }

  private void serve(Route route, Handler<RoutingContext> handler) {
    serve(route, RoutingContext::next, handler);
  }

  /**
   * The access decision comes before the body is read and before a watch opens: a watch without a cursor never asks
   * the store, and a body refused is not worth decoding.
   */
  private void serve(Route route, Handler<RoutingContext> reading, Handler<RoutingContext> handler) {
    route.handler(hosts).handler(authentication).handler(ArkRoutes::permitted).handler(reading).handler(ctx -> {
      try {
        handler.handle(ctx);
      } catch (RuntimeException refused) {
        ctx.fail(refused);
      }
    }).failureHandler(ArkErrors::handle);
  }

  private static void permitted(RoutingContext ctx) {
    try {
      ArkBrokerAccess.require(actor(ctx));
      ctx.next();
    } catch (RuntimeException refused) {
      ctx.fail(refused);
    }
  }

  static Actor actor(RoutingContext ctx) {
    return Authentication.actor(ctx);
  }

  static void json(RoutingContext ctx, int status, JsonObject body) {
    rawJson(ctx, status, body.toBuffer());
  }

  static void rawJson(RoutingContext ctx, int status, Buffer body) {
    ctx.response().setStatusCode(status).putHeader("Content-Type", "application/json; charset=utf-8").end(body);
  }

  /** 200 with {@code body}, written a piece at a time. */
  static void items(RoutingContext ctx, ItemsBody body) {
    body.sendTo(ctx.response().setStatusCode(200).putHeader("Content-Type", "application/json; charset=utf-8"));
  }

  /** {@code {"items":[...],"total":n,"hasMore":b,"nextCursor":n}}, the cursor only when there is more. */
  static void page(RoutingContext ctx, ItemPage page) {
    items(ctx, new ItemsBody().text("{\"items\":").items(page.items())
        .text(",\"total\":" + page.total() + ",\"hasMore\":" + page.hasMore()
            + (page.hasMore() ? ",\"nextCursor\":" + page.last() : "") + "}")
        );
  }

  /** {@code 200 {"status":"success","message":message}} once {@code deleting} succeeds, what every DELETE answers. */
  static void deleted(RoutingContext ctx, Future<Void> deleting, String message) {
    deleting.onSuccess(done -> json(ctx, 200, new JsonObject().put("status", "success").put("message", message)))
        .onFailure(ctx::fail);
  }

  static String quoted(String text) {
    return "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\"";
  }
}
