package ark.broker.bus;

import ark.broker.question.Question;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.time.Instant;

/**
 * How long questions are kept, from the {@code retention} section: the contract between the question store, which
 * removes them, and the surfaces, which tell their clients (an MCP task's {@code ttl}, why a question is gone).
 * Pending questions are never removed.
 *
 * @param settledQuestions how long a settled question stays after its last change; zero keeps them for ever
 * @param auditTrail how long the audit trail keeps a settled question after its last change, at least as long as
 *     the question itself (the same when the config says 0)
 */
public record QuestionRetention(Duration settledQuestions, Duration auditTrail) {
  public static final QuestionRetention FOREVER = new QuestionRetention(Duration.ZERO, Duration.ZERO);

  /**
   * @throws IllegalArgumentException for a negative age, or an audit trail kept for less time than the questions it
   *     records
   */
  public static QuestionRetention from(JsonObject retention) {
    long settled = retention.getLong("settledQuestionsSeconds");
    long audit = retention.getLong("auditSeconds");
    if (settled < 0 || audit < 0) {
      throw new IllegalArgumentException("retention.settledQuestionsSeconds and retention.auditSeconds must not be"
          + " negative (0: kept for ever), not " + settled + " and " + audit);
    }
    if (audit != 0 && (settled == 0 || audit < settled)) {
      throw new IllegalArgumentException("retention.auditSeconds (" + audit + ") must be 0 or at least"
          + " retention.settledQuestionsSeconds (" + settled + "): the audit trail keeps a question at least as long as"
          + " the question is kept (0 for both keeps everything)");
    }
    return new QuestionRetention(Duration.ofSeconds(settled), Duration.ofSeconds(audit == 0 ? settled : audit));
  }

  public boolean keepsForever() {
    return settledQuestions.isZero();
  }

  /** When a settled question leaves the API: its retention after its last change; null if it is pending or kept for ever. */
  public Instant removalOf(Question question) {
    return question.isPending() || keepsForever() ? null : question.updatedAt().plus(settledQuestions);
  }

  /** What clients are told of a question that is not (or no longer) there. */
  public String whyNotFound(String id) {
    return "question " + id + " not found" + (keepsForever() ? ""
        : ": settled questions are removed " + describe(settledQuestions) + " after their last change");
  }

  /** What clients are told of a question that left the API, which the audit trail keeps. */
  public String whyRemoved(Question removed) {
    return "question " + removed.id() + " was removed: settled questions are kept " + describe(settledQuestions)
        + " after their last change (retention.settledQuestionsSeconds), and its last change was at "
        + removed.updatedAt() + "; the audit trail keeps it until " + removed.updatedAt().plus(auditTrail);
  }

  /** "30 days", "90 seconds": an age as people say it. */
  public static String describe(Duration age) {
    long seconds = age.toSeconds();
    if (seconds % 86_400 == 0) {
      return plural(seconds / 86_400, "day");
    }
    if (seconds % 3600 == 0) {
      return plural(seconds / 3600, "hour");
    }
    return seconds % 60 == 0 ? plural(seconds / 60, "minute") : plural(seconds, "second");
  }

  private static String plural(long n, String unit) {
    return n + " " + unit + (n == 1 ? "" : "s");
  }
}
