package ark.broker.logging;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;

import java.nio.charset.StandardCharsets;

/**
 * logback's JSON encoder, with what JSON leaves raw in a string but some readers take for a line break, a
 * reordering or nothing ({@code U+0085}, {@code U+2028}, bidirectional controls, {@code U+FEFF}) written as
 * {@code \\uXXXX} too ({@link LogText#escapedJson}): the same value to a JSON parser, one event per line to
 * everyone else.
 */
final class EscapedJsonEncoder extends JsonEncoder {
  @Override
  public byte[] encode(ILoggingEvent event) {
    byte[] encoded = super.encode(event);
    String line = new String(encoded, 0, encoded.length - 1, StandardCharsets.UTF_8);
    String escaped = LogText.escapedJson(line);
    // These characters can only be inside strings of the JSON, where an escape means the same.
    return escaped.equals(line) ? encoded : (escaped + "\n").getBytes(StandardCharsets.UTF_8);
  }
}
