package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;

/**
 * One record of the event log: the full question after the change, so replaying or compacting the
 * log needs no other record.
 *
 * @param expectedVersion the resourceVersion the writer saw before the change; when several writers
 *     race, the log order decides and only the first record that still matches is applied
 * @param writer an id unique to the write, so the writer recognises its own record when it comes back
 *     from the log
 * @param restated true for a record that restates a question's state rather than changing it (a
 *     snapshot's record, or a repair after a lost race); its {@code expectedVersion} is then the
 *     resourceVersion of the state it restates
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record QuestionEvent(EventType type, Question question, Instant at, Long expectedVersion, String writer,
                            @JsonInclude(JsonInclude.Include.NON_DEFAULT) boolean restated) {

  public static QuestionEvent created(Question question, String writer) {
    return new QuestionEvent(EventType.CREATED, question, question.createdAt(), null, writer, false);
  }

  public static QuestionEvent changed(EventType type, Question before, Question after, String writer) {
    return new QuestionEvent(type, after.withoutVersion(), after.updatedAt(), before.resourceVersion(), writer, false);
  }

  /** The current state as a self-contained record, for snapshots. */
  public static QuestionEvent restating(Question question) {
    return restating(question, null);
  }

  /**
   * The current state again, as the newest record of its question: after a record that lost a race,
   * so that a compacted log, which keeps only the newest record of each question, keeps the truth.
   */
  public static QuestionEvent restating(Question question, String writer) {
    return new QuestionEvent(EventType.leadingTo(question.status()), question.withoutVersion(),
        question.updatedAt(), question.resourceVersion(), writer, true);
  }
}
