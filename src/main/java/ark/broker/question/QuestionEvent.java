package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;

/**
 * One record of the event log: the full question after the change, so replaying or compacting the
 * log needs no other record.
 *
 * @param expectedVersion the resourceVersion the writer saw before the change; when several writers
 *     race, the log order decides and only the first record that still matches is applied
 * @param restated true for a record that restates a question's state rather than changing it (a
 *     snapshot's record, or a repair after a lost race); its {@code expectedVersion} is then the
 *     resourceVersion of the state it restates
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record QuestionEvent(EventType type, Question question, Instant at, Long expectedVersion,
                            @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean restated) {

  public static QuestionEvent created(Question question) {
    return new QuestionEvent(EventType.CREATED, question, question.createdAt(), null, false);
  }

  public static QuestionEvent changed(EventType type, Question before, Question after) {
    return new QuestionEvent(type, after.withoutVersion(), after.updatedAt(), before.resourceVersion(), false);
  }

  /**
   * A settled question leaves the API; the record holds it as it was, which the audit trail keeps. Decided on the
   * question as it is, so it does not apply should the question have changed meanwhile.
   */
  public static QuestionEvent removed(Question question, Instant at) {
    return new QuestionEvent(EventType.REMOVED, question.withoutVersion(), at, question.resourceVersion(), false);
  }

  /** A removed question as the audit trail keeps it, restated (in a snapshot, or after a record that lost a race). */
  public static QuestionEvent restatingRemoved(Question question) {
    return new QuestionEvent(EventType.REMOVED, question.withoutVersion(), question.updatedAt(), question.resourceVersion(),
        true);
  }

  /** Nothing of the question is kept any more: what a log that keeps no tombstones writes instead of one. */
  public static QuestionEvent forgotten(String id, Instant at) {
    return new QuestionEvent(EventType.FORGOTTEN, Question.knownOnlyAs(id), at, null, false);
  }

  /**
   * The current state again, as the newest record of its question: after a record that lost a race,
   * so that a compacted log, which keeps only the newest record of each question, keeps the truth; and
   * as a snapshot's self-contained record.
   */
  public static QuestionEvent restating(Question question) {
    return new QuestionEvent(EventType.leadingTo(question.outcome().status()), question.withoutVersion(),
        question.updatedAt(), question.resourceVersion(), true);
  }

  /**
   * This restatement for a log that holds nothing of the question yet: the question takes its resourceVersion from
   * the position the record gets there, as a question created there would (a move between the embedded log and Kafka).
   */
  public QuestionEvent withVersionFromPosition() {
    return new QuestionEvent(type, question, at, null, restated);
  }
}
