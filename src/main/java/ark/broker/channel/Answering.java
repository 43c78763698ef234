package ark.broker.channel;

import ark.broker.access.QuestionAccess;
import ark.broker.auth.Actor;
import ark.broker.auth.AuthFailure;
import ark.broker.auth.AuthMethod;
import ark.broker.auth.Principal;
import ark.broker.auth.PrincipalKind;
import ark.broker.bus.Messages.InboundResponse;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoreFailure;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionNotFoundException;
import ark.broker.question.QuestionStatus;
import ark.broker.question.Reply;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Answers questions for people who answer in a channel, on whichever replica their request lands. The channel
 * finds the question as the broker; the answer is the person's own: with {@code onlyRecipients}, the store
 * records it as made by them ({@link PrincipalKind#HUMAN}, {@link AuthMethod#CHANNEL}, their directory teams) and
 * {@link QuestionAccess} decides whether they may. Without it, or for a question addressed to no person (an agent,
 * a channel: whoever sees it in the channel is its audience), the broker answers on their behalf, and the history
 * says so: the broker's name, kind admin, method channel. Either way the history's user agent is the channel
 * account that acted ({@code slack:U012ABCDEF}, {@code github:johndoe}) and {@code answeredBy} is the person.
 *
 * <p>The store's refusals become the inbound request's status here (404 unknown, 400 not an option, 403 not
 * theirs to answer, 409 not pending).
 */
public final class Answering {
  private static final QuestionFilter PENDING = new QuestionFilter(QuestionStatus.PENDING, null, null);
  private static final Principal BROKER_FOR_A_PERSON = new Principal(PrincipalKind.ADMIN,
      Actor.BROKER.principal().name(), List.of(), AuthMethod.CHANNEL);

  private final QuestionStore store;
  private final boolean onlyRecipients;

  Answering(QuestionStore store, boolean onlyRecipients) {
    this.store = store;
    this.onlyRecipients = onlyRecipients;
  }

  public Future<Question> question(String id, String requestId) {
    return refusedAsProblem(store.get(Actor.BROKER.inRequest(requestId), id));
  }

  /** Every pending question, for a channel that must find which of them a reply is about. */
  public Future<List<Question>> pending(String requestId) {
    List<Question> found = new ArrayList<>();
    return refusedAsProblem(store.forEach(Actor.BROKER.inRequest(requestId), PENDING, found::add).map(done -> found));
  }

  /**
   * Answers as {@code user} with text. An answer equal to an option but for letter case counts as that option. The
   * same person giving the same answer again (a redelivered request) gets the question back.
   */
  public Future<Question> answer(Question question, String given, ChannelUser user, String requestId) {
    String response = asOption(question, given.strip());
    if (question.outcome().status() == QuestionStatus.ANSWERED && Objects.equals(question.outcome().response(), response)
        && Objects.equals(question.outcome().answeredBy(), user.identity())) {
      return Future.succeededFuture(question);
    }
    return answer(question, new Reply.Text(response), user, requestId);
  }

  /** Answers as {@code user} with a form's fields or a decision; the question checks them (400 naming what fails). */
  public Future<Question> answer(Question question, Reply reply, ChannelUser user, String requestId) {
    InboundProblem notAllowed = refusal(question, user);
    if (notAllowed != null) {
      return Future.failedFuture(notAllowed);
    }
    return refusedAsProblem(store.answer(actorFor(question, user).inRequest(requestId), question.id(), reply,
        user.identity()));
  }

  /**
   * Why {@code user} may not answer the question (403), or null if they may: {@link QuestionAccess} asked
   * before anything is written, so a channel can refuse with a reason the person understands.
   */
  public InboundProblem refusal(Question question, ChannelUser user) {
    try {
      QuestionAccess.answeredBy(actorFor(question, user), question, user.identity());
      return null;
    } catch (AuthFailure | QuestionNotFoundException notTheirs) {
      // The person saw the question in the channel, so "not found" would only puzzle them.
      return new InboundProblem(403, "question " + question.id() + " is for " + String.join(" or ", question.recipients()) + "; "
          + user.identity() + " may not answer it");
    }
  }

  /** What a channel's service is told when its request answered a question. */
  public static InboundResponse answered(Question question) {
    return Inbound.json(200, new JsonObject().put("status", "answered").put("question", question.id()));
  }

  private Actor actorFor(Question question, ChannelUser user) {
    Principal principal = onlyRecipients && addressedToPeople(question)
        ? new Principal(PrincipalKind.HUMAN, user.identity(), user.teams(), AuthMethod.CHANNEL)
        : BROKER_FOR_A_PERSON;
    return new Actor(principal, null, null, user.account(), null);
  }

  private static boolean addressedToPeople(Question question) {
    return question.recipients().stream().anyMatch(to -> to.startsWith("ark://users/") || to.startsWith("ark://teams/"));
  }

  private static String asOption(Question question, String response) {
    if (question.asked().options() != null) {
      for (String option : question.asked().options()) {
        if (option.equalsIgnoreCase(response)) {
          return option;
        }
      }
    }
    return response;
  }

  private static <T> Future<T> refusedAsProblem(Future<T> call) {
    return call.recover(failure -> Future.failedFuture(
        new InboundProblem(StoreFailure.of(failure).reason().code, failure.getMessage())));
  }
}
