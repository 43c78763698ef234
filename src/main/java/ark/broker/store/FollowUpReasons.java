package ark.broker.store;

import ark.broker.question.EventType;
import ark.broker.question.Question;

/** How the history and the operator's log tell why the broker reminded, escalated or timed out a question. */
final class FollowUpReasons {
  private FollowUpReasons() {
  }

  /** The reason the question's history keeps for the step. */
  static String of(EventType step, Question before) {
    return switch (step) {
      case REMINDED -> "nobody answered within " + before.followUps().escalation().remindAfterSeconds() + " s";
      case ESCALATED -> "nobody answered within " + before.followUps().escalation().escalateAfterSeconds() + " s; now also asking "
          + String.join(", ", before.followUps().escalation().escalateTo());
      case ANSWERED -> "nobody answered by " + before.followUps().expiresAt() + "; answered as escalation.onTimeout says";
      default -> null;
    };
  }

  /** The rest of the log line "Question {id} ...". */
  static String logged(EventType step, Question after) {
    return switch (step) {
      case REMINDED -> "is due for a reminder to " + after.asked().recipient() + " (nobody answered yet)";
      case ESCALATED -> "escalated to " + String.join(", ", after.followUps().escalation().escalateTo()) + " (nobody answered yet)";
      case ANSWERED -> "timed out and was answered as its escalation.onTimeout says: " + after.outcome().response();
      default -> "expired (it was due at " + after.followUps().expiresAt() + ")";
    };
  }
}
