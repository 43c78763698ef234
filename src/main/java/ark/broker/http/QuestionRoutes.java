package ark.broker.http;

import ark.broker.bus.Addresses;
import ark.broker.bus.Failures;
import ark.broker.bus.Messages.AnswerQuestion;
import ark.broker.bus.Messages.CancelQuestion;
import ark.broker.bus.Messages.Changes;
import ark.broker.bus.Messages.ChangesSince;
import ark.broker.bus.Messages.CreateQuestion;
import ark.broker.bus.Messages.Created;
import ark.broker.bus.Messages.GetQuestion;
import ark.broker.bus.Messages.ListQuestions;
import ark.broker.question.Question;
import ark.broker.question.QuestionJson;
import ark.broker.question.QuestionPage;
import ark.broker.question.QuestionRequests;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;
import java.io.UncheckedIOException;

/** The {@code /questions} resource: list, watch, create, read, answer, cancel. */
final class QuestionRoutes {
  private static final long RETRY_MILLIS = 2000;

  private final EventBus bus;
  private final WatchHub hub;
  private final long storeTimeoutMillis;

  QuestionRoutes(EventBus bus, WatchHub hub, long storeTimeoutMillis) {
    this.bus = bus;
    this.hub = hub;
    this.storeTimeoutMillis = storeTimeoutMillis;
  }

  void list(RoutingContext ctx) {
    ListRequest request = ListRequest.parse(ctx.queryParams(), ctx.request().getHeader("Last-Event-ID"));
    if (request.watch()) {
      watch(ctx, request);
      return;
    }
    this.<QuestionPage>ask(ctx, Addresses.QUESTIONS_LIST,
            new ListQuestions(request.filter(), request.limit(), request.continueToken()))
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
    this.<Created>ask(ctx, Addresses.QUESTIONS_CREATE, new CreateQuestion(QuestionRequests.create(body)))
        .onSuccess(created -> {
          Question question = created.question();
          json(ctx.response()
              .setStatusCode(created.created() ? 201 : 200)
              .putHeader("Location", "/questions/" + question.id()), question);
        });
  }

  void get(RoutingContext ctx) {
    this.<Question>ask(ctx, Addresses.QUESTIONS_GET, new GetQuestion(ctx.pathParam("id")))
        .onSuccess(question -> json(ctx.response().setStatusCode(200), question));
  }

  void answer(RoutingContext ctx) {
    QuestionRequests.Answer answer = QuestionRequests.answer(readBody(ctx));
    this.<Question>ask(ctx, Addresses.QUESTIONS_ANSWER,
            new AnswerQuestion(ctx.pathParam("id"), answer.response(), answer.answeredBy()))
        .onSuccess(question -> json(ctx.response().setStatusCode(200), question));
  }

  void cancel(RoutingContext ctx) {
    this.<Question>ask(ctx, Addresses.QUESTIONS_CANCEL, new CancelQuestion(ctx.pathParam("id")))
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
    this.<Changes>request(ctx, Addresses.QUESTIONS_HISTORY, new ChangesSince(request.resourceVersion()))
        .onSuccess(history -> watcher.catchUp(history.changes()))
        .onFailure(failure -> {
          hub.remove(watcher);
          int code = Failures.codeOf(failure);
          watcher.end(SseFrames.error(ErrorResponses.body(code, failure.getMessage(), RequestLog.requestId(ctx))));
        });
  }

  /** Sends to the store; a failure becomes this request's error response. */
  private <T> Future<T> ask(RoutingContext ctx, String address, Object body) {
    return this.<T>request(ctx, address, body).onFailure(ctx::fail);
  }

  private <T> Future<T> request(RoutingContext ctx, String address, Object body) {
    DeliveryOptions options = new DeliveryOptions()
        .setSendTimeout(storeTimeoutMillis)
        .addHeader(Addresses.REQUEST_ID_HEADER, RequestLog.requestId(ctx));
    return bus.<T>request(address, body, options).map(message -> message.body());
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
