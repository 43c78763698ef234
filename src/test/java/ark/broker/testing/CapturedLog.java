package ark.broker.testing;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * What a logger (and the loggers below it) logs in this JVM while the capture is open:
 * {@code try (CapturedLog log = CapturedLog.of(Caller.class)) { ... } log.events()}.
 */
public final class CapturedLog implements AutoCloseable {
  private final Logger logger;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private CapturedLog(Logger logger) {
    this.logger = logger;
    appender.start();
    logger.addAppender(appender);
  }

  public static CapturedLog of(Class<?> type) {
    return new CapturedLog((Logger) LoggerFactory.getLogger(type));
  }

  /** Every logger's events. */
  public static CapturedLog all() {
    return new CapturedLog((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME));
  }

  /** The events so far; still there once the capture is closed. */
  public List<ILoggingEvent> events() {
    return appender.list;
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
  }
}
