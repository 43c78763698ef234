package ark.broker.logging;

/**
 * Text that reaches an operator's log as one line, whatever a client put in it: control characters (newlines
 * included), Unicode line separators and the characters that reorder text on screen are written as {@code \n},
 * {@code \r}, {@code \t} or {@code \\uXXXX}, so a client string cannot start a forged log line, rewrite what a
 * terminal shows, or hide what follows it.
 */
public final class LogText {
  private LogText() {
  }

  public static String escaped(String text) {
    if (text == null) {
      return null;
    }
    int first = firstUnsafe(text);
    if (first < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
    for (int i = first; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (isUnsafe(c)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }

  private static int firstUnsafe(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (isUnsafe(text.charAt(i))) {
        return i;
      }
    }
    return -1;
  }

  /** C0 and C1 controls and DEL, line and paragraph separators, and bidirectional formatting characters. */
  private static boolean isUnsafe(char c) {
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029
        || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f || c == 0x061c;
  }
}
