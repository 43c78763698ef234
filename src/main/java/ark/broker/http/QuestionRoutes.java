package ark.broker.http;

import ark.broker.access.QuestionAccess;
import ark.broker.auth.Actor;
import ark.broker.auth.Principal;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoreFailure;
import ark.broker.bus.WaitingAgents;
import ark.broker.question.Question;
import ark.broker.question.QuestionRequests;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;
import java.io.UncheckedIOException;

/** The {@code /questions} resource (list, watch, create, read, answer, cancel, history), the caller and the audit trail. */
record QuestionRoutes(QuestionStore store, WatchHub hub, EventBus bus) {
  /** How long an EventSource waits before it reconnects a watch that ended. */
  static final long RETRY_MILLIS = 2000;

  void list(RoutingContext ctx) {
    ListRequest request = ListRequest.parse(ctx.queryParams(), ctx.request().getHeader("Last-Event-ID"));
    if (request.watch()) {
      watch(ctx, request);
      return;
    }
    failOn(ctx, store.list(Authentication.actor(ctx), request.filter(), request.order(), request.limit(), request.continueToken()))
        .onSuccess(page -> {
          ObjectNode body = QuestionJson.MAPPER.createObjectNode();
          body.put("resourceVersion", page.resourceVersion());
          body.set("items", QuestionJson.MAPPER.valueToTree(page.items()));
          if (page.continueToken() != null) {
            body.put("continue", page.continueToken());
          }
          json(ctx.response().setStatusCode(200), body);
        });
  }

  void create(RoutingContext ctx) {
    JsonNode body = readBody(ctx);
    failOn(ctx, store.create(Authentication.actor(ctx), QuestionRequests.create(body)))
        .onSuccess(created -> {
          Question question = created.question();
          json(ctx.response()
              .setStatusCode(created.created() ? 201 : 200)
              .putHeader("Location", "/questions/" + question.id()), question);
        });
  }

  void get(RoutingContext ctx) {
    failOn(ctx, store.get(Authentication.actor(ctx), ctx.pathParam("id")))
        .onSuccess(question -> json(ctx.response().setStatusCode(200), question));
  }

  void answer(RoutingContext ctx) {
    QuestionRequests.Answer answer = QuestionRequests.answer(readBody(ctx));
    // The agent waiting for the answer has it on its stream before this reply is sent.
    failOn(ctx, store.answer(Authentication.actor(ctx), ctx.pathParam("id"), answer.reply(), answer.answeredBy())
        .compose(question -> WaitingAgents.handedOver(bus, question.resourceVersion()).map(question)))
        .onSuccess(question -> json(ctx.response().setStatusCode(200), question));
  }

  void cancel(RoutingContext ctx) {
    failOn(ctx, store.cancel(Authentication.actor(ctx), ctx.pathParam("id"), ctx.queryParams().get("reason")))
        .onSuccess(question -> json(ctx.response().setStatusCode(200), question));
  }

  private void watch(RoutingContext ctx, ListRequest request) {
    HttpServerResponse response = ctx.response()
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Accel-Buffering", "no");
    Watcher watcher = new Watcher(response, QuestionAccess.visible(Authentication.actor(ctx), request.filter()),
        request.resourceVersion());
    hub.add(watcher);
    response.closeHandler(closed -> hub.remove(watcher));
    String from = request.resourceVersion() == null ? "from now" : "after resourceVersion " + request.resourceVersion();
    response.write(SseFrames.opening("watching questions " + from, RETRY_MILLIS));
    if (request.resourceVersion() == null) {
      return;
    }
    Actor actor = Authentication.actor(ctx);
    watcher.catchUp(after -> store.changesSince(actor, after, Watcher.HISTORY_PAGE), hub::frameOf)
        .onFailure(failure -> {
          hub.remove(watcher);
          int code = StoreFailure.of(failure).reason().code;
          watcher.end(SseFrames.error(ErrorResponses.body(code, failure.getMessage(), RequestLog.requestId(ctx))));
        });
  }

  /** The caller: who it is, as the broker knows it, so a dashboard can show who is signed in. */
  static void whoami(RoutingContext ctx) {
    Actor actor = Authentication.actor(ctx);
    Principal principal = actor.principal();
    JsonObject body = new JsonObject().put("name", principal.name()).put("kind", principal.kind().wireName())
        .put("teams", new JsonArray(principal.teams())).put("method", principal.method().wireName());
    if (actor.impersonating()) {
      body.put("actingFor", actor.actingFor());
    }
    ctx.json(body);
  }

  /**
   * {@code GET /questions/{id}/events}: the question's history, who did what and when; for admins also that of a
   * question removed after its retention, while the audit trail keeps it.
   */
  void events(RoutingContext ctx) {
    failOn(ctx, store.audited(Authentication.actor(ctx), ctx.pathParam("id"))).onSuccess(question -> {
      ObjectNode body = QuestionJson.MAPPER.createObjectNode();
      body.put("question", question.id());
      body.set("items", QuestionJson.MAPPER.valueToTree(question.history()));
      json(ctx.response().setStatusCode(200), body);
    });
  }

  /**
   * {@code GET /audit?since=<resourceVersion>}: every change after that position, one JSON object a line
   * (NDJSON), for admins. Ends at the newest change; the last line's resourceVersion is where to continue.
   */
  void audit(RoutingContext ctx) {
    Actor actor = auditor(ctx);
    long since = AuditTrail.since(ctx.queryParams().get("since"));
    failOn(ctx, store.changesSince(actor, since, Watcher.HISTORY_PAGE)).onSuccess(first -> sendNdjson(ctx,
        AuditTrail.changes(ctx.response(), after -> store.changesSince(actor, after, Watcher.HISTORY_PAGE)), first));
  }

  /**
   * {@code GET /audit/removed}: every question removed after its retention that the audit trail still keeps, with its
   * history, one a line (NDJSON), for admins; in the order they go, the first to go first.
   */
  void auditRemoved(RoutingContext ctx) {
    Actor actor = auditor(ctx);
    failOn(ctx, store.removedKept(actor, QuestionStore.PAGE, null)).onSuccess(first -> sendNdjson(ctx,
        AuditTrail.removedQuestions(ctx.response(), after -> store.removedKept(actor, QuestionStore.PAGE, after)), first));
  }

  private static Actor auditor(RoutingContext ctx) {
    Actor actor = Authentication.actor(ctx);
    if (!actor.effective().isAdmin()) {
      throw new HttpProblem(403, "only admins may read the audit trail");
    }
    return actor;
  }

  /** The 200 response of an audit trail, its lines page by page from the first. */
  private static <P> void sendNdjson(RoutingContext ctx, AuditTrail<P> trail, P first) {
    ctx.response().setChunked(true).putHeader("Content-Type", "application/x-ndjson").setStatusCode(200);
    trail.send(first);
  }

  /** A failure of the store's becomes this request's error response. */
  private static <T> Future<T> failOn(RoutingContext ctx, Future<T> call) {
    return call.onFailure(ctx::fail);
  }

  /** {@code application/json}, in any case, alone or followed by parameters ({@code ; charset=utf-8}). */
  private static boolean isJson(String type) {
    String json = "application/json";
    if (type == null || !type.regionMatches(true, 0, json, 0, json.length())) {
      return false;
    }
    int at = json.length();
    while (at < type.length() && " \t\n\u000B\f\r".indexOf(type.charAt(at)) >= 0) {
      at++;
    }
    return at == type.length() || type.charAt(at) == ';';
  }

  private static JsonNode readBody(RoutingContext ctx) {
    String type = ctx.request().getHeader("Content-Type");
    if (!isJson(type)) {
      throw new HttpProblem(415, "request body must be application/json, not " + (type == null ? "untyped" : type));
    }
    Buffer body = ctx.body().buffer();
    if (body == null || body.length() == 0) {
      throw new HttpProblem(400, "request body must be a JSON object");
    }
    try {
      return QuestionJson.MAPPER.readTree(body.getBytes());
    } catch (IOException e) {
      throw e instanceof com.fasterxml.jackson.core.JsonProcessingException json
          ? new HttpProblem(400, "request body is not valid JSON: " + json.getOriginalMessage())
          : new UncheckedIOException(e);
    }
  }

  private static void json(HttpServerResponse response, Object value) {
    try {
      response.putHeader("Content-Type", "application/json")
          .end(Buffer.buffer(QuestionJson.MAPPER.writeValueAsBytes(value)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
