package ark.broker.channel;

import ark.broker.bus.Messages.InboundResponse;
import ark.broker.bus.StoreClient;
import ark.broker.bus.StoreFailure;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionStatus;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Answers questions for people who answer in a channel, on whichever replica their request lands. The
 * store decides (first answer wins, options constrain); this adds who may answer and the leniency a
 * typed answer needs. The store's refusals become the inbound request's status here (404 unknown, 400
 * not an option, 409 not pending).
 */
public final class Answering {
  private static final QuestionFilter PENDING = new QuestionFilter(QuestionStatus.PENDING, null, null);

  private final StoreClient store;
  private final Directory directory;
  private final boolean onlyRecipients;

  Answering(StoreClient store, Directory directory, boolean onlyRecipients) {
    this.store = store;
    this.directory = directory;
    this.onlyRecipients = onlyRecipients;
  }

  public Future<Question> question(String id, String requestId) {
    return refusedAsProblem(store.forRequest(requestId).get(id));
  }

  /** Every pending question, for a channel that must find which of them a reply is about. */
  public Future<List<Question>> pending(String requestId) {
    List<Question> found = new ArrayList<>();
    return refusedAsProblem(store.forRequest(requestId).forEach(PENDING, found::add).map(done -> found));
  }

  /** Answers the question with this id, as {@link #answer(Question, String, String, String)} does. */
  public Future<Question> answer(String questionId, String given, String identity, String requestId) {
    return question(questionId, requestId).compose(question -> answer(question, given, identity, requestId));
  }

  /**
   * Answers as {@code identity}. An answer equal to an option but for letter case counts as that option.
   * The same person giving the same answer again (a redelivered request) gets the question back.
   */
  public Future<Question> answer(Question question, String given, String identity, String requestId) {
    InboundProblem notAllowed = refusal(question, identity);
    if (notAllowed != null) {
      return Future.failedFuture(notAllowed);
    }
    String response = asOption(question, given.strip());
    if (question.status() == QuestionStatus.ANSWERED && Objects.equals(question.response(), response)
        && Objects.equals(question.answeredBy(), identity)) {
      return Future.succeededFuture(question);
    }
    return refusedAsProblem(store.forRequest(requestId).answer(question.id(), response, identity));
  }

  /** Why {@code identity} may not answer the question (403), or null if they may. */
  public InboundProblem refusal(Question question, String identity) {
    if (onlyRecipients && !directory.isAddressedTo(question.recipient(), identity)) {
      return new InboundProblem(403, "question " + question.id() + " is for " + question.recipient() + "; "
          + identity + " may not answer it");
    }
    return null;
  }

  /** What a channel's service is told when its request answered a question. */
  public static InboundResponse answered(Question question) {
    return Inbound.json(200, new JsonObject().put("status", "answered").put("question", question.id()));
  }

  private static String asOption(Question question, String response) {
    if (question.options() != null) {
      for (String option : question.options()) {
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
