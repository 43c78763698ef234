package ark.broker.question;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One copy of the small values that recur across questions and their histories (who asked, who is asked, who acted
 * from which address and client, the options): a replica holds hundreds of thousands of questions, and decoding the
 * log would otherwise give each its own copies. Bounded, because some of these values come from clients (a user
 * agent): once full, values are kept as they come.
 */
final class Canonical {
  private static final int MAX_ENTRIES = 65_536;
  private static final int MAX_TEXT_LENGTH = 256;
  private static final ConcurrentHashMap<Object, Object> SHARED = new ConcurrentHashMap<>();

  private Canonical() {
  }

  /** The shared copy of {@code text}, or {@code text} itself (a long text, or the table is full). */
  static String text(String text) {
    return text == null || text.length() > MAX_TEXT_LENGTH ? text : of(text);
  }

  /** The shared copy of an immutable value, or {@code value} itself once the table is full. */
  @SuppressWarnings("unchecked")
  static <T> T of(T value) {
    Object shared = SHARED.get(value);
    if (shared != null) {
      return (T) shared;
    }
    if (SHARED.size() >= MAX_ENTRIES) {
      return value;
    }
    shared = SHARED.putIfAbsent(value, value);
    return shared == null ? value : (T) shared;
  }
}
