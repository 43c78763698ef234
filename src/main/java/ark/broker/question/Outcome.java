package ark.broker.question;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;

/**
 * What became of a question: pending until answered, cancelled or expired.
 *
 * @param response the answer as text (a form's answer as JSON, a decision's action); null unless answered
 * @param answer a form's answer, or null
 * @param decision an approval's decision, or null
 * @param answeredOnTimeout whether the broker gave the answer, its escalation's default, because nobody did
 */
public record Outcome(QuestionStatus status, String response, ObjectNode answer, Decision decision, String answeredBy,
                      boolean answeredOnTimeout, Instant answeredAt) {
  public static final Outcome PENDING = new Outcome(QuestionStatus.PENDING, null, null, null, null, false, null);

  public Outcome {
    // Answers are often one of a few options.
    response = Canonical.text(response);
    answeredBy = Canonical.text(answeredBy);
  }

  static Outcome answered(String response, ObjectNode answer, Decision decision, String by, boolean onTimeout,
                          Instant at) {
    return new Outcome(QuestionStatus.ANSWERED, response, answer, decision, by, onTimeout, at);
  }

  /** Cancelled or expired: no answer. */
  static Outcome ended(QuestionStatus status) {
    return new Outcome(status, null, null, null, null, false, null);
  }
}
