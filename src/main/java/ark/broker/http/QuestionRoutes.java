package ark.broker.http;

import ark.broker.bus.StoreClient;
import ark.broker.bus.StoreFailure;
import ark.broker.question.Question;
import ark.broker.question.QuestionJson;
import ark.broker.question.QuestionRequests;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;
import java.io.UncheckedIOException;

/** The {@code /questions} resource: list, watch, create, read, answer, cancel. */
record QuestionRoutes(StoreClient store, WatchHub hub) {
  private static final long RETRY_MILLIS = 2000;

  void list(RoutingContext ctx) {
    ListRequest request = ListRequest.parse(ctx.queryParams(), ctx.request().getHeader("Last-Event-ID"));
    if (request.watch()) {
      watch(ctx, request);
      return;
    }
    failOn(ctx, store(ctx).list(request.filter(), request.limit(), request.continueToken()))
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
    failOn(ctx, store(ctx).create(QuestionRequests.create(body)))
        .onSuccess(created -> {
          Question question = created.question();
          json(ctx.response()
              .setStatusCode(created.created() ? 201 : 200)
              .putHeader("Location", "/questions/" + question.id()), question);
        });
  }

  void get(RoutingContext ctx) {
    failOn(ctx, store(ctx).get(ctx.pathParam("id")))
        .onSuccess(question -> json(ctx.response().setStatusCode(200), question));
  }

  void answer(RoutingContext ctx) {
    QuestionRequests.Answer answer = QuestionRequests.answer(readBody(ctx));
    failOn(ctx, store(ctx).answer(ctx.pathParam("id"), answer.response(), answer.answeredBy()))
        .onSuccess(question -> json(ctx.response().setStatusCode(200), question));
  }

  void cancel(RoutingContext ctx) {
    failOn(ctx, store(ctx).cancel(ctx.pathParam("id")))
        .onSuccess(question -> json(ctx.response().setStatusCode(200), question));
  }

  private void watch(RoutingContext ctx, ListRequest request) {
    HttpServerResponse response = ctx.response()
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Accel-Buffering", "no");
    Watcher watcher = new Watcher(response, request.filter(), request.resourceVersion());
    hub.add(watcher);
    response.closeHandler(closed -> hub.remove(watcher));
    String from = request.resourceVersion() == null ? "from now" : "after resourceVersion " + request.resourceVersion();
    response.write(SseFrames.opening("watching questions " + from, RETRY_MILLIS));
    if (request.resourceVersion() == null) {
      return;
    }
    StoreClient forRequest = store(ctx);
    watcher.catchUp(after -> forRequest.changesSince(after, Watcher.HISTORY_PAGE), hub::frameOf)
        .onFailure(failure -> {
          hub.remove(watcher);
          int code = StoreFailure.of(failure).reason().code;
          watcher.end(SseFrames.error(ErrorResponses.body(code, failure.getMessage(), RequestLog.requestId(ctx))));
        });
  }

  private StoreClient store(RoutingContext ctx) {
    return store.forRequest(RequestLog.requestId(ctx));
  }

  /** A failure of the store's becomes this request's error response. */
  private static <T> Future<T> failOn(RoutingContext ctx, Future<T> call) {
    return call.onFailure(ctx::fail);
  }

  private static JsonNode readBody(RoutingContext ctx) {
    String type = ctx.request().getHeader("Content-Type");
    if (type == null || !type.toLowerCase().matches("application/json\\s*(;.*)?")) {
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
