package ark.broker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code log.requests}: the lines written once per request a client makes (a question created, answered or
 * cancelled, through any surface). Off by default: at thousands of requests a second they would bury the lines an
 * operator acts on (start-up, configuration, failures, deliveries, retention, the worker role). They go to their
 * own logger, {@value #LOGGER}, so its level alone decides, whatever {@code LOG_LEVEL} says.
 */
public final class RequestLines {
  /** The logger of every per-request line; {@link BrokerLogConfigurator} turns it off until {@link #use} says otherwise. */
  public static final String LOGGER = "ark.broker.requests";

  private RequestLines() {
  }

  /** Where a room writes its per-request lines. */
  public static Logger logger() {
    return LoggerFactory.getLogger(LOGGER);
  }

  /** Turns the per-request lines on ({@code INFO}) or off. */
  public static void use(boolean on) {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.getLogger(LOGGER).setLevel(on ? Level.INFO : Level.OFF);
    }
  }
}
