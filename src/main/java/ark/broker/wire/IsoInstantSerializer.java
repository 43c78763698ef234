package ark.broker.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;

import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * Writes instants exactly as {@link Instant#toString()} (ISO-8601, UTC, {@code 2026-11-22T10:30:00.123Z}) without
 * the general date-time formatter: every question written to the log and to a client holds several instants, and
 * that formatter was a tenth of the cost of writing one. Years outside 0000-9999 take the general path.
 */
final class IsoInstantSerializer extends StdScalarSerializer<Instant> {
  private static final long SECONDS_PER_DAY = 86_400;
  /** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z, as epoch seconds. */
  private static final long FIRST = -62_167_219_200L;
  private static final long END = 253_402_300_800L;

  IsoInstantSerializer() {
    super(Instant.class);
  }

  @Override
  public void serialize(Instant instant, JsonGenerator generator, SerializerProvider provider) throws IOException {
    char[] text = new char[30];
    int length = format(instant, text);
    if (length < 0) {
      generator.writeString(instant.toString());
    } else {
      generator.writeString(text, 0, length);
    }
  }

  /** Writes the instant into {@code text} (30 chars) and returns its length, or -1 when its year has no 4 digits. */
  static int format(Instant instant, char[] text) {
    long seconds = instant.getEpochSecond();
    if (seconds < FIRST || seconds >= END) {
      return -1;
    }
    long days = Math.floorDiv(seconds, SECONDS_PER_DAY);
    int secondOfDay = (int) Math.floorMod(seconds, SECONDS_PER_DAY);
    LocalDate date = LocalDate.ofEpochDay(days);
    put(text, 0, date.getYear(), 4);
    text[4] = '-';
    put(text, 5, date.getMonthValue(), 2);
    text[7] = '-';
    put(text, 8, date.getDayOfMonth(), 2);
    text[10] = 'T';
    put(text, 11, secondOfDay / 3600, 2);
    text[13] = ':';
    put(text, 14, secondOfDay / 60 % 60, 2);
    text[16] = ':';
    put(text, 17, secondOfDay % 60, 2);
    int at = 19;
    int nano = instant.getNano();
    if (nano != 0) {
      // As ISO_INSTANT: milliseconds, microseconds or nanoseconds, whichever is the fewest digits that hold it.
      text[at++] = '.';
      if (nano % 1_000_000 == 0) {
        put(text, at, nano / 1_000_000, 3);
        at += 3;
      } else if (nano % 1_000 == 0) {
        put(text, at, nano / 1_000, 6);
        at += 6;
      } else {
        put(text, at, nano, 9);
        at += 9;
      }
    }
    text[at++] = 'Z';
    return at;
  }

  /** {@code value} as exactly {@code digits} decimal digits, zero-padded, at {@code from}. */
  private static void put(char[] text, int from, int value, int digits) {
    for (int i = from + digits - 1; i >= from; i--) {
      text[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }
}
