package ark.broker.bus;

import java.time.Duration;

/**
 * The contract between the MCP surface and the session store about idle sessions: the store ends a
 * session not saved for the idle timeout, so the surface saves a session in use at least every
 * {@link #period}, and the store looks for idle ones as often.
 */
public final class SessionIdle {
  private SessionIdle() {
  }

  /** A quarter of the timeout, between 100 ms and an hour; zero when sessions never idle out. */
  public static Duration period(Duration idleTimeout) {
    if (idleTimeout.isZero() || idleTimeout.isNegative()) {
      return Duration.ZERO;
    }
    long quarter = idleTimeout.toMillis() / 4;
    return Duration.ofMillis(Math.max(100, Math.min(quarter, Duration.ofHours(1).toMillis())));
  }
}
