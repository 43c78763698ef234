package ark.broker.reconcile;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Delays between attempts at something failing: doubling from {@code baseMillis} up to
 * {@code maxMillis}, each drawn from its upper half so that work that failed together does not retry
 * in lockstep.
 */
public record Backoff(long baseMillis, long maxMillis) {
  public Backoff {
    if (baseMillis < 1 || maxMillis < baseMillis) {
      throw new IllegalArgumentException("a retry delay must be at least 1 ms and its maximum at least the first delay"
          + " (got " + baseMillis + " ms and " + maxMillis + " ms)");
    }
  }

  /** The wait before retry number {@code failures} (1 after the first failure). */
  public long delayMillis(int failures) {
    long ceiling = baseMillis << Math.min(Math.max(failures - 1, 0), 30);
    long delay = Math.min(maxMillis, ceiling < 0 ? maxMillis : ceiling);
    return delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
  }
}
