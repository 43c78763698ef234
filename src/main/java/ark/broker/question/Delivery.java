package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;

/**
 * A record that a channel showed the question to people.
 *
 * @param channel the channel's name, as the question lists it
 * @param ref where it was shown, in the channel's own terms (a Slack channel and timestamp, a GitHub comment)
 * @param label what to tell the asker, such as "Slack #ops"
 * @param outcome the final status the channel has since shown there (the answer, cancellation or
 *     expiry), or null while it still shows the question as open
 * @param remindedAt when the channel reminded people there that the question waits (or when it was posted
 *     after the reminder was due, which says as much), or null
 * @param escalatedAt likewise for the question's escalation
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Delivery(String channel, String ref, String label, Instant at, QuestionStatus outcome, Instant remindedAt,
                       Instant escalatedAt) {

  @JsonCreator
  public Delivery {
  }

  public Delivery(String channel, String ref, String label, Instant at) {
    this(channel, ref, label, at, null, null, null);
  }

  /** The same record, noting that the channel now shows {@code shown} there. */
  public Delivery showing(QuestionStatus shown, Instant now) {
    return new Delivery(channel, ref, label, now, shown, remindedAt, escalatedAt);
  }

  /** The same record, noting that the channel told people there of the follow-up {@code step} (a reminder or an escalation). */
  public Delivery following(EventType step, Instant now) {
    return step == EventType.REMINDED ? new Delivery(channel, ref, label, at, outcome, now, escalatedAt)
        : new Delivery(channel, ref, label, at, outcome, remindedAt, now);
  }

  /**
   * A new post made after the question was reminded or escalated already says everything the follow-up would:
   * noted as told, so nobody gets a reminder right after the question itself.
   */
  public Delivery coveringFollowUpsOf(Question question, Instant now) {
    return new Delivery(channel, ref, label, at, outcome, question.followUps().remindedAt() == null ? remindedAt : now,
        question.followUps().escalatedAt() == null ? escalatedAt : now);
  }

  /** Whether people there still have to hear of a follow-up the question had: {@link #following} names it, or null. */
  public EventType followUpOwed(Question question) {
    if (!question.isPending()) {
      return null;
    }
    if (question.followUps().escalatedAt() != null && escalatedAt == null) {
      return EventType.ESCALATED;
    }
    return question.followUps().remindedAt() != null && remindedAt == null ? EventType.REMINDED : null;
  }
}
