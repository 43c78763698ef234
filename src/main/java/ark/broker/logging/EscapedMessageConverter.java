package ark.broker.logging;

import ch.qos.logback.classic.pattern.ClassicConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;

/**
 * {@code %escapedMsg} in a logback pattern: the event's message as {@link LogText#escaped} writes it, so every
 * line of the text log is one event, whichever client string a message quotes.
 */
public final class EscapedMessageConverter extends ClassicConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return LogText.escaped(event.getFormattedMessage());
  }
}
