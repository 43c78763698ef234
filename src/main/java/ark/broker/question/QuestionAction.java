package ark.broker.question;

import java.time.Instant;

/** One entry of a question's history: what happened, when, and who did it. */
public record QuestionAction(EventType type, Instant at, Attribution by) {
}
