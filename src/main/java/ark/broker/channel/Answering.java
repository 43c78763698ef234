package ark.broker.channel;

import ark.broker.bus.Addresses;
import ark.broker.bus.Failures;
import ark.broker.bus.Messages.AnswerQuestion;
import ark.broker.bus.Messages.GetQuestion;
import ark.broker.bus.Messages.ListQuestions;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionPage;
import ark.broker.question.QuestionStatus;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Answers questions for people who answer in a channel, on whichever replica their request lands. The
 * store decides (first answer wins, options constrain); this adds who may answer and the leniency a
 * typed answer needs.
 */
final class Answering {
  private static final int PAGE = 1000;

  private final EventBus bus;
  private final Directory directory;
  private final boolean onlyRecipients;

  Answering(EventBus bus, Directory directory, boolean onlyRecipients) {
    this.bus = bus;
    this.directory = directory;
    this.onlyRecipients = onlyRecipients;
  }

  Future<Question> question(String id, String requestId) {
    return ask(Addresses.QUESTIONS_GET, new GetQuestion(id), requestId);
  }

  /** Every pending question, for a channel that must find which of them a reply is about. */
  Future<List<Question>> pending(String requestId) {
    return pendingAfter(null, new ArrayList<>(), requestId);
  }

  /**
   * Answers as {@code identity}. An answer equal to an option but for letter case counts as that option.
   * The same person giving the same answer again (a redelivered request) gets the question back.
   */
  Future<Question> answer(Question question, String given, String identity, String requestId) {
    InboundProblem notAllowed = refusal(question, identity);
    if (notAllowed != null) {
      return Future.failedFuture(notAllowed);
    }
    String response = asOption(question, given.strip());
    if (question.status() == QuestionStatus.ANSWERED && Objects.equals(question.response(), response)
        && Objects.equals(question.answeredBy(), identity)) {
      return Future.succeededFuture(question);
    }
    return ask(Addresses.QUESTIONS_ANSWER, new AnswerQuestion(question.id(), response, identity), requestId);
  }

  /** Why {@code identity} may not answer the question (403), or null if they may. */
  InboundProblem refusal(Question question, String identity) {
    if (onlyRecipients && !directory.isAddressedTo(question.recipient(), identity)) {
      return new InboundProblem(403, "question " + question.id() + " is for " + question.recipient() + "; "
          + identity + " may not answer it");
    }
    return null;
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

  private Future<List<Question>> pendingAfter(String continueToken, List<Question> found, String requestId) {
    QuestionFilter pending = new QuestionFilter(QuestionStatus.PENDING, null, null);
    return this.<QuestionPage>ask(Addresses.QUESTIONS_LIST, new ListQuestions(pending, PAGE, continueToken), requestId)
        .compose(page -> {
          found.addAll(page.items());
          return page.continueToken() == null ? Future.succeededFuture(found) : pendingAfter(page.continueToken(), found, requestId);
        });
  }

  /** Asks the store; its refusal becomes the inbound request's status (404 unknown, 400 not an option, 409 not pending). */
  private <T> Future<T> ask(String address, Object body, String requestId) {
    DeliveryOptions options = new DeliveryOptions();
    if (requestId != null) {
      options.addHeader(Addresses.REQUEST_ID_HEADER, requestId);
    }
    return bus.<T>request(address, body, options).map(reply -> reply.body())
        .recover(failure -> Future.failedFuture(new InboundProblem(Failures.codeOf(failure), failure.getMessage())));
  }
}
