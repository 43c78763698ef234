package ark.broker.bus;

import ark.broker.question.InvalidQuestionException;
import ark.broker.question.QuestionConflictException;
import ark.broker.question.QuestionNotFoundException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

/**
 * Failure codes on event-bus replies. They are HTTP statuses, because that is the vocabulary every
 * surface already maps from: REST uses them as is, MCP turns them into JSON-RPC errors.
 */
public final class Failures {
  public static final int BAD_REQUEST = 400;
  public static final int NOT_FOUND = 404;
  public static final int CONFLICT = 409;
  public static final int GONE = 410;
  public static final int INTERNAL = 500;
  public static final int UNAVAILABLE = 503;

  private Failures() {
  }

  public static int codeOf(Throwable failure) {
    if (failure instanceof InvalidQuestionException) {
      return BAD_REQUEST;
    }
    if (failure instanceof QuestionNotFoundException) {
      return NOT_FOUND;
    }
    if (failure instanceof QuestionConflictException) {
      return CONFLICT;
    }
    if (failure instanceof ReplyException reply) {
      if (reply.failureType() == ReplyFailure.RECIPIENT_FAILURE) {
        return reply.failureCode();
      }
      return UNAVAILABLE; // no store yet (still replaying) or it did not answer in time
    }
    return INTERNAL;
  }
}
