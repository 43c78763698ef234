package ark.broker.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.AsyncAppenderBase;
import ch.qos.logback.core.OutputStreamAppender;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;

/**
 * {@code log.format}: {@code text}, one line per event as {@link BrokerLogLayout} writes it, or {@code json}, one JSON
 * object per line for operators who ship their logs ({@code timestamp} in epoch milliseconds, {@code level},
 * {@code threadName}, {@code loggerName}, {@code formattedMessage}, and {@code throwable} for errors with a stack
 * trace). Either way a client's text stays inside its event: escaped in text, a JSON string in JSON.
 */
public final class LogFormat {
  /** The appender of the broker's logging ({@link BrokerLogConfigurator}) that writes every event, behind its asynchronous queue. */
  static final String CONSOLE = "console";
  static final String ASYNC = "async";

  private LogFormat() {
  }

  /**
   * Switches the broker's console log to {@code format}.
   *
   * @throws IllegalArgumentException for a format other than text and json
   */
  public static void use(String format) {
    String chosen = format == null ? "" : format.trim().toLowerCase(Locale.ROOT);
    if (!chosen.equals("text") && !chosen.equals("json")) {
      throw new IllegalArgumentException("log.format (LOG_FORMAT) must be text or json, not '"
          + LogText.escaped(format) + "'");
    }
    if (chosen.equals("text") || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    OutputStreamAppender<ILoggingEvent> console = console(context);
    if (console == null) {
      LoggerFactory.getLogger(LogFormat.class).warn("log.format is json, but the logging configuration is not the "
          + "broker's own (no appender '{}' behind '{}'): left as it is", CONSOLE, ASYNC);
      return;
    }
    // In place: the asynchronous queue takes only one appender, and a stopped one would drop events meanwhile.
    console.setEncoder(json(context));
  }

  /** The encoder of {@code json}: what a log shipper needs of an event, and nothing that repeats it. */
  static JsonEncoder json(LoggerContext context) {
    JsonEncoder json = new EscapedJsonEncoder();
    json.setContext(context);
    json.setWithSequenceNumber(false);
    json.setWithNanoseconds(false);
    json.setWithContext(false);
    json.setWithMarkers(false);
    json.setWithMDC(false);
    json.setWithKVPList(false);
    json.setWithMessage(false);
    json.setWithArguments(false);
    json.setWithFormattedMessage(true);
    json.start();
    return json;
  }

  @SuppressWarnings("unchecked")
  private static OutputStreamAppender<ILoggingEvent> console(LoggerContext context) {
    Appender<ILoggingEvent> async = context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender(ASYNC);
    if (async instanceof AsyncAppenderBase<ILoggingEvent> queue
        && queue.getAppender(CONSOLE) instanceof OutputStreamAppender<?> console) {
      return (OutputStreamAppender<ILoggingEvent>) console;
    }
    return null;
  }
}
