package ark.broker.store;

import ark.broker.bus.QuestionRetention;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;

/**
 * What retention did, for operators: one line a minute at most while it removes questions, counting them, rather
 * than a line for each of thousands. Used from the store's event loop only.
 */
final class RetentionLog {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionLog.class);
  private static final long MINUTE_MILLIS = 60_000;

  private final Clock clock;
  private final QuestionRetention retention;
  private long removed;
  private long forgotten;
  private long loggedAt;

  RetentionLog(Clock clock, QuestionRetention retention) {
    this.clock = clock;
    this.retention = retention;
  }

  /** A removal was written; it counts if it applied (the question had not changed meanwhile). */
  void removed(QuestionView.Effect effect) {
    if (effect == QuestionView.Effect.APPLIED) {
      removed++;
      maybeLog();
    }
  }

  void forgotten(QuestionView.Effect effect) {
    if (effect == QuestionView.Effect.DROPPED || effect == QuestionView.Effect.APPLIED) {
      forgotten++;
      maybeLog();
    }
  }

  private void maybeLog() {
    long now = clock.millis();
    if (now - loggedAt < MINUTE_MILLIS) {
      return;
    }
    LOG.info("Retention: {} settled questions removed (kept {} after their last change), {} forgotten by the audit"
        + " trail (kept {}) since the last such line", removed, QuestionRetention.describe(retention.settledQuestions()),
        forgotten, QuestionRetention.describe(retention.auditTrail()));
    removed = 0;
    forgotten = 0;
    loggedAt = now;
  }
}
