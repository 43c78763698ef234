package ark.broker.question;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;

/** The string formats MCP elicitation allows ({@code email}, {@code uri}, {@code date}, {@code date-time}), checked as forms check them. */
final class TextFormats {
  // A form's check, not RFC 5322: one @, something on each side, a dot in the domain, no spaces.
  private static final Pattern EMAIL = Pattern.compile("[^@\\s]+@[^@\\s]+\\.[^@\\s]+");

  private TextFormats() {
  }

  static boolean matches(String format, String text) {
    try {
      return switch (format) {
        case "email" -> EMAIL.matcher(text).matches();
        case "uri" -> new URI(text).isAbsolute();
        case "date" -> LocalDate.parse(text) != null;
        case "date-time" -> OffsetDateTime.parse(text) != null;
        default -> true;
      };
    } catch (URISyntaxException | DateTimeParseException e) {
      return false;
    }
  }

  static String describe(String format) {
    return switch (format) {
      case "email" -> "an email address";
      case "uri" -> "an absolute URI such as https://example.com/x";
      case "date" -> "a date such as 2030-01-31";
      case "date-time" -> "a date and time with an offset such as 2030-01-31T12:00:00Z";
      default -> format;
    };
  }
}
