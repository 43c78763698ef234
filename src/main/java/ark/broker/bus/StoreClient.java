package ark.broker.bus;

import ark.broker.auth.Actor;
import ark.broker.auth.Principal;
import ark.broker.bus.Messages.AnswerQuestion;
import ark.broker.bus.Messages.CancelQuestion;
import ark.broker.bus.Messages.Changes;
import ark.broker.bus.Messages.ChangesSince;
import ark.broker.bus.Messages.CreateQuestion;
import ark.broker.bus.Messages.Created;
import ark.broker.bus.Messages.DeleteSession;
import ark.broker.bus.Messages.GetQuestion;
import ark.broker.bus.Messages.GetSession;
import ark.broker.bus.Messages.ListQuestions;
import ark.broker.bus.Messages.RecordDelivery;
import ark.broker.bus.Messages.SessionRecord;
import ark.broker.bus.Messages.StartSession;
import ark.broker.bus.Messages.StoreStatus;
import ark.broker.question.Delivery;
import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionOrder;
import ark.broker.question.QuestionPage;
import ark.broker.question.Reply;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;

import java.util.List;
import java.util.function.Consumer;

/**
 * The store, as every room reaches it: typed requests over the event bus with one send timeout, made {@link #as}
 * an actor, the request id passed along for the store's logs, and every failure a {@link StoreFailure}. Immutable,
 * so one instance serves every verticle and event loop.
 */
public final class StoreClient {
  private static final int PAGE = 1000;

  private final EventBus bus;
  private final DeliveryOptions options;
  /** Who the requests are for; null until {@link #as} names one, and then no question request is sent. */
  private final Actor actor;

  public StoreClient(EventBus bus, long timeoutMillis) {
    this(bus, new DeliveryOptions().setSendTimeout(timeoutMillis), null);
  }

  private StoreClient(EventBus bus, DeliveryOptions options, Actor actor) {
    this.bus = bus;
    this.options = options;
    this.actor = actor;
  }

  /** The same client, acting for {@code actor}: the store lets it see and do what that actor may. */
  public StoreClient as(Actor acting) {
    return new StoreClient(bus, options, acting);
  }

  /** The same client, telling the store which request it works for (the store's log lines carry the id). */
  public StoreClient forRequest(String requestId) {
    if (requestId == null) {
      return this;
    }
    return new StoreClient(bus, new DeliveryOptions(options).addHeader(Addresses.REQUEST_ID_HEADER, requestId), actor);
  }

  public Future<Created> create(NewQuestion request) {
    return request(Addresses.QUESTIONS_CREATE, new CreateQuestion(actor(), request));
  }

  /** The question; fails with {@link StoreFailure.Reason#NOT_FOUND} if there is none. */
  public Future<Question> get(String id) {
    return request(Addresses.QUESTIONS_GET, new GetQuestion(actor(), id));
  }

  /** The question, or null if there is none with this id. */
  public Future<Question> find(String id) {
    return orNullIfNotFound(get(id));
  }

  public Future<QuestionPage> list(QuestionFilter filter, int limit, String continueToken) {
    return list(filter, QuestionOrder.OLDEST_FIRST, limit, continueToken);
  }

  public Future<QuestionPage> list(QuestionFilter filter, QuestionOrder order, int limit, String continueToken) {
    return request(Addresses.QUESTIONS_LIST, new ListQuestions(actor(), filter, order, limit, continueToken));
  }

  /** Every question the filter matches, page after page, for work that must look at all of them. */
  public Future<Void> forEach(QuestionFilter filter, Consumer<Question> action) {
    return forEachAfter(filter, null, action);
  }

  public Future<Question> answer(String id, Reply reply, String answeredBy) {
    return request(Addresses.QUESTIONS_ANSWER, new AnswerQuestion(actor(), id, reply, answeredBy));
  }

  public Future<Question> cancel(String id) {
    return cancel(id, null);
  }

  /** Withdraws (its sender) or declines (its recipient) the question, saying why for its history. */
  public Future<Question> cancel(String id, String reason) {
    return request(Addresses.QUESTIONS_CANCEL, new CancelQuestion(actor(), id, reason));
  }

  /** Records that a channel showed the question; the same channel and ref replace an earlier record. */
  public Future<Question> recordDelivery(String id, Delivery delivery) {
    return request(Addresses.QUESTIONS_DELIVER, new RecordDelivery(actor(), id, delivery));
  }

  /** A page of the changes after position {@code after} the actor may see; fails with {@link StoreFailure.Reason#GONE} when too old. */
  public Future<Changes> changesSince(long after, int limit) {
    return request(Addresses.QUESTIONS_HISTORY, new ChangesSince(actor(), after, limit));
  }

  /** Answers only once the store has replayed its log, so an answer means ready. */
  public Future<StoreStatus> status() {
    return request(Addresses.STORE_STATUS, "");
  }

  /** Completes once the new session, started by {@code owner}, is durable and applied here. */
  public Future<Void> startSession(Principal owner, String id, String document) {
    return request(Addresses.SESSIONS_START, new StartSession(owner, id, document)).mapEmpty();
  }

  /** Completes once the session document is durable and applied here. */
  public Future<Void> saveSession(String id, String document) {
    return request(Addresses.SESSIONS_SAVE, new SessionRecord(id, document)).mapEmpty();
  }

  /** The session's document, or null if there is no such session. */
  public Future<String> findSession(String id) {
    return orNullIfNotFound(this.<SessionRecord>request(Addresses.SESSIONS_GET, new GetSession(id))
        .map(SessionRecord::document));
  }

  public Future<Void> deleteSession(String id) {
    return request(Addresses.SESSIONS_DELETE, new DeleteSession(id)).mapEmpty();
  }

  private Future<Void> forEachAfter(QuestionFilter filter, String continueToken, Consumer<Question> action) {
    return list(filter, PAGE, continueToken).compose(page -> {
      page.items().forEach(action);
      return page.continueToken() == null ? Future.succeededFuture() : forEachAfter(filter, page.continueToken(), action);
    });
  }

  private Actor actor() {
    if (actor == null) {
      throw new IllegalStateException("a store request needs an actor: use StoreClient.as(actor)");
    }
    return actor;
  }

  private static <T> Future<T> orNullIfNotFound(Future<T> found) {
    return found.recover(failure -> StoreFailure.is(failure, StoreFailure.Reason.NOT_FOUND)
        ? Future.succeededFuture(null) : Future.failedFuture(failure));
  }

  private <T> Future<T> request(String address, Object body) {
    return bus.<T>request(address, body, options).transform(reply -> reply.succeeded()
        ? Future.succeededFuture(reply.result().body())
        : Future.failedFuture(StoreFailure.of(reply.cause())));
  }
}
