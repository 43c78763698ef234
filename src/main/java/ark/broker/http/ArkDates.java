package ark.broker.http;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * The dates clients send Ark's broker routes: an ISO-8601 date-time with an offset, or an instant, held as epoch
 * milliseconds within the dates JavaScript has (from -271821-04-20 to +275760-09-13, 8.64e15 ms either side of 1970),
 * which every reader of Ark's (ark-api, the dashboard) shows them with. A date beyond them is refused.
 */
final class ArkDates {
  private static final Instant FIRST = Instant.ofEpochMilli(-8_640_000_000_000_000L);
  private static final Instant LAST = Instant.ofEpochMilli(8_640_000_000_000_000L);

  private ArkDates() {
  }

  /** The instant {@code text} writes, or null when it writes none. */
  static Instant instant(String text) {
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException notAnOffsetTime) {
      try {
        return Instant.parse(text);
      } catch (DateTimeParseException notAnInstant) {
        return null;
      }
    }
  }

  /** {@code at} in epoch milliseconds; a 400 naming {@code field} and its {@code text} when JavaScript has no such date. */
  static long epochMillis(Instant at, String field, String text) {
    if (at.isBefore(FIRST) || at.isAfter(LAST)) {
      throw ArkProblem.invalid(field + ": Invalid date: " + text + " is not between " + FIRST + " and " + LAST);
    }
    return at.toEpochMilli();
  }
}
