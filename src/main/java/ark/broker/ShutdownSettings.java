package ark.broker;

import io.vertx.core.json.JsonObject;

import java.time.Duration;

/**
 * How the process stops when asked to ({@code shutdown} in conf/broker.json).
 *
 * @param delay   how long /readyz answers 503 while everything is still served, so load balancers stop sending
 * @param timeout how long requests still running after the delay may take before their connections are closed
 */
record ShutdownSettings(Duration delay, Duration timeout) {
  /** The longest either may be: beyond it an orchestrator has long since killed the process. */
  private static final long MAX_SECONDS = 3600;

  static ShutdownSettings from(JsonObject shutdown) {
    return new ShutdownSettings(Duration.ofSeconds(seconds(shutdown, "delaySeconds")),
        Duration.ofSeconds(seconds(shutdown, "timeoutSeconds")));
  }

  private static long seconds(JsonObject shutdown, String key) {
    long seconds = shutdown.getLong(key);
    if (seconds < 0 || seconds > MAX_SECONDS) {
      throw new IllegalArgumentException("shutdown." + key + " must be 0 to " + MAX_SECONDS + ", not " + seconds);
    }
    return seconds;
  }
}
