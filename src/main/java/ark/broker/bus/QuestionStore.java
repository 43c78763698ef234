package ark.broker.bus;

import ark.broker.auth.Actor;
import ark.broker.bus.Messages.Changes;
import ark.broker.bus.Messages.Created;
import ark.broker.bus.Messages.StoreStatus;
import ark.broker.question.Delivery;
import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionOrder;
import ark.broker.question.QuestionPage;
import ark.broker.question.Reply;
import io.vertx.core.Future;

import java.util.function.Consumer;

/**
 * The question store, as every room reaches it over the bus ({@link Addresses#QUESTION_STORE}). Every request
 * names its {@link Actor}: the store decides what that actor may see and do. Refusals fail with a
 * {@link StoreFailure}. Writes complete once durable and applied on this replica, and their changes are published
 * on {@link Addresses#QUESTIONS_CHANGED}.
 */
public interface QuestionStore {
  /** How many questions {@link #forEach} reads a page. */
  int PAGE = 1000;

  /** Asks a new question, or finds the one its idempotency key (or Query and tool call) already asked. */
  Future<Created> create(Actor actor, NewQuestion request);

  /**
   * The question; fails with {@link StoreFailure.Reason#GONE} if it was removed after its retention, and with
   * {@link StoreFailure.Reason#NOT_FOUND} if there is none the actor may see; each saying why.
   */
  Future<Question> get(Actor actor, String id);

  /**
   * The question with its history, as the audit trail keeps it: like {@link #get}, and for admins also one removed
   * after its retention whose audit trail is still kept (until {@code retention.auditSeconds}).
   */
  Future<Question> audited(Actor actor, String id);

  Future<QuestionPage> list(Actor actor, QuestionFilter filter, QuestionOrder order, int limit, String continueToken);

  Future<Question> answer(Actor actor, String id, Reply reply, String answeredBy);

  /**
   * Withdraws (its sender) or declines (its recipient) the question.
   *
   * @param reason why, for its history; or null
   */
  Future<Question> cancel(Actor actor, String id, String reason);

  /** Records that a channel showed the question; the same channel and ref replace an earlier record. */
  Future<Question> recordDelivery(Actor actor, String id, Delivery delivery);

  /**
   * A page of the changes after position {@code after} the actor may see; fails with
   * {@link StoreFailure.Reason#GONE} when they are no longer retained.
   */
  Future<Changes> changesSince(Actor actor, long after, int limit);

  /**
   * For admins, a page of the questions removed after their retention whose audit trail is still kept, each with its
   * history, in the order they go (oldest last change first): what an auditor exports before
   * {@code retention.auditSeconds} lets them go. Fails with {@link StoreFailure.Reason#FORBIDDEN} for anyone else.
   *
   * @param continueToken where the previous page ended, or null for the first
   */
  Future<QuestionPage> removedKept(Actor actor, int limit, String continueToken);

  /** Answers only once the store has replayed its log, so an answer means ready. */
  Future<StoreStatus> status();

  /** The question, or null if there is none with this id (never, or no more: removed after its retention). */
  default Future<Question> find(Actor actor, String id) {
    return get(actor, id).recover(failure -> StoreFailure.is(failure, StoreFailure.Reason.NOT_FOUND)
        || StoreFailure.is(failure, StoreFailure.Reason.GONE) ? Future.succeededFuture(null) : Future.failedFuture(failure));
  }

  /** Every question the filter matches, page after page, for work that must look at all of them. */
  default Future<Void> forEach(Actor actor, QuestionFilter filter, Consumer<Question> action) {
    return forEachAfter(actor, filter, null, action);
  }

  private Future<Void> forEachAfter(Actor actor, QuestionFilter filter, String continueToken, Consumer<Question> action) {
    return list(actor, filter, QuestionOrder.OLDEST_FIRST, PAGE, continueToken).compose(page -> {
      page.items().forEach(action);
      return page.continueToken() == null ? Future.succeededFuture()
          : forEachAfter(actor, filter, page.continueToken(), action);
    });
  }
}
