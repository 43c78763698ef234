package ark.broker.channel;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Delays between attempts at a failing destination: doubling from {@code baseMillis} up to
 * {@code maxMillis}, each drawn from its upper half so that destinations that failed together do not
 * retry in lockstep.
 */
public record Backoff(long baseMillis, long maxMillis) {
  public Backoff {
    if (baseMillis < 1 || maxMillis < baseMillis) {
      throw new IllegalArgumentException("channels.retryBaseMillis must be at least 1 and at most channels.retryMaxMillis");
    }
  }

  long delayMillis(int failures) {
    long ceiling = baseMillis << Math.min(Math.max(failures - 1, 0), 30);
    long delay = Math.min(maxMillis, ceiling < 0 ? maxMillis : ceiling);
    return delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
  }
}
