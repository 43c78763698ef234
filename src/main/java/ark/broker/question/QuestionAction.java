package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;

/**
 * One entry of a question's history: what happened, when, who did it, and why if they said (a declined
 * question's reason).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record QuestionAction(EventType type, Instant at, Attribution by, String reason) {
  public QuestionAction {
    by = by == null ? null : Canonical.of(by);
    if (reason != null && reason.length() > Limits.SHORT_TEXT * 4) {
      throw new InvalidQuestionException("reason is longer than " + Limits.SHORT_TEXT * 4 + " characters");
    }
  }
}
