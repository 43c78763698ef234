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
 * @param restated true for a snapshot's record: it restates a question's state rather than changing it
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
    return new QuestionEvent(EventType.leadingTo(question.status()), question.withoutVersion(),
        question.updatedAt(), null, null, true);
  }
}
