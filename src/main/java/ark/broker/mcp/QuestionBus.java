package ark.broker.mcp;

import ark.broker.bus.Addresses;
import ark.broker.bus.Failures;
import ark.broker.bus.Messages.CancelQuestion;
import ark.broker.bus.Messages.CreateQuestion;
import ark.broker.bus.Messages.Created;
import ark.broker.bus.Messages.GetQuestion;
import ark.broker.bus.Messages.ListQuestions;
import ark.broker.mcp.protocol.JsonRpcError;
import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionPage;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;

/** The store, as the MCP surface reaches it: over the event bus, with failures as JSON-RPC errors. */
final class QuestionBus {
  private final EventBus bus;
  private final DeliveryOptions options;

  QuestionBus(EventBus bus, long timeoutMillis) {
    this.bus = bus;
    this.options = new DeliveryOptions().setSendTimeout(timeoutMillis);
  }

  Future<Created> create(NewQuestion request) {
    return this.<Created>request(Addresses.QUESTIONS_CREATE, new CreateQuestion(request));
  }

  /** The question, or null if there is none with this id. */
  Future<Question> find(String id) {
    return this.<Question>request(Addresses.QUESTIONS_GET, new GetQuestion(id))
        .recover(failure -> Failures.codeOf(failure) == Failures.NOT_FOUND
            ? Future.succeededFuture(null) : Future.failedFuture(failure));
  }

  Future<Question> cancel(String id) {
    return request(Addresses.QUESTIONS_CANCEL, new CancelQuestion(id));
  }

  Future<QuestionPage> list(QuestionFilter filter, int limit, String continueToken) {
    return request(Addresses.QUESTIONS_LIST, new ListQuestions(filter, limit, continueToken));
  }

  private <T> Future<T> request(String address, Object body) {
    return bus.<T>request(address, body, options).map(message -> message.body());
  }

  /** A store failure as a protocol error: the store being away is an internal error to the client. */
  static JsonRpcError asRpcError(Throwable failure) {
    int code = Failures.codeOf(failure);
    return code == Failures.BAD_REQUEST || code == Failures.NOT_FOUND || code == Failures.CONFLICT
        ? JsonRpcError.invalidParams(failure.getMessage())
        : new JsonRpcError(JsonRpcError.INTERNAL_ERROR, "The question store is unavailable: " + failure.getMessage(), null);
  }
}
