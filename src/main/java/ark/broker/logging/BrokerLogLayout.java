package ark.broker.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.CoreConstants;
import ch.qos.logback.core.LayoutBase;

import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/**
 * The broker's text log line: {@code 2026-11-27T13:09:34.735Z WARN  Authenticators - message}, the time in the
 * JVM's time zone, the level padded to five characters, the logger's class name, and the message and any stack
 * trace escaped ({@link EscapedMessageConverter}, {@link EscapedThrowableConverter}), so every line is one event
 * whatever client text a message quotes. It is the pattern
 * {@code %d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0} - %escapedMsg%n%escapedEx}, written without logback's
 * pattern parser.
 */
final class BrokerLogLayout extends LayoutBase<ILoggingEvent> {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
  private static final int LEVEL_WIDTH = 5;

  private final ZoneId zone = ZoneId.systemDefault();
  private final EscapedMessageConverter message = new EscapedMessageConverter();
  private final EscapedThrowableConverter thrown = new EscapedThrowableConverter();

  @Override
  public void start() {
    thrown.setContext(getContext());
    message.start();
    thrown.start();
    super.start();
  }

  @Override
  public String doLayout(ILoggingEvent event) {
    StringBuilder line = new StringBuilder(128);
    TIME.formatTo(Instant.ofEpochMilli(event.getTimeStamp()).atZone(zone), line);
    String level = event.getLevel().toString();
    line.append(' ').append(level);
    line.append(" ".repeat(Math.max(0, LEVEL_WIDTH - level.length())));
    String logger = event.getLoggerName();
    line.append(' ').append(logger, logger.lastIndexOf('.') + 1, logger.length());
    line.append(" - ").append(message.convert(event)).append(CoreConstants.LINE_SEPARATOR);
    return line.append(thrown.convert(event)).toString();
  }
}
