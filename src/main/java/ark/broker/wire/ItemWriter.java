package ark.broker.wire;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Writes one item of Ark's broker API (a message, a chunk, an event) as the compact JSON object its readers get,
 * field by field, with the caller's own JSON copied in as it is: the stores render each item once, when they keep
 * it, and every read and watch writes those bytes out unchanged.
 */
public final class ItemWriter {
  /** JavaScript's {@code toISOString()}: UTC, always with milliseconds. */
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final ByteArrayOutputStream out;
  private boolean first = true;

  private ItemWriter(int size) {
    out = new ByteArrayOutputStream(size);
    out.write('{');
  }

  /** An item of about {@code size} bytes. */
  public static ItemWriter object(int size) {
    return new ItemWriter(size);
  }

  public ItemWriter text(String name, String value) {
    if (value != null) {
      name(name);
      out.write('"');
      out.writeBytes(JsonStringEncoder.getInstance().quoteAsUTF8(value));
      out.write('"');
    }
    return this;
  }

  public ItemWriter number(String name, long value) {
    name(name);
    out.writeBytes(Long.toString(value).getBytes(StandardCharsets.US_ASCII));
    return this;
  }

  /** A timestamp as JavaScript writes one, from epoch milliseconds. */
  public ItemWriter timestamp(String name, long epochMillis) {
    return text(name, timestamp(epochMillis));
  }

  /** A JSON value as it is (compact JSON, such as a caller's message). */
  public ItemWriter json(String name, byte[] value) {
    name(name);
    out.writeBytes(value);
    return this;
  }

  public byte[] end() {
    out.write('}');
    return out.toByteArray();
  }

  /**
   * A compact JSON object (a caller's event, a rendered span) with one more number field last: how a store adds the
   * {@code sequence} readers resume from to an item it keeps as it came.
   */
  public static byte[] withNumber(byte[] object, String name, long value) {
    byte[] field = ((object.length > 2 ? ",\"" : "\"") + name + "\":" + value + "}").getBytes(StandardCharsets.UTF_8);
    byte[] item = java.util.Arrays.copyOf(object, object.length - 1 + field.length);
    System.arraycopy(field, 0, item, object.length - 1, field.length);
    return item;
  }

  /** Epoch milliseconds as JavaScript's {@code toISOString()} writes them. */
  public static String timestamp(long epochMillis) {
    return TIMESTAMP.format(Instant.ofEpochMilli(epochMillis));
  }

  private void name(String name) {
    if (!first) {
      out.write(',');
    }
    first = false;
    out.write('"');
    out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
    out.write('"');
    out.write(':');
  }
}
