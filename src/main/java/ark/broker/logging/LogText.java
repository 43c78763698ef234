package ark.broker.logging;

/**
 * Text that reaches an operator's log as one line, whatever a client put in it: control characters (newlines
 * included), Unicode line separators, the characters that reorder text on screen and the invisible ones (zero-width
 * spaces and joiners, U+FEFF) are written as {@code \n}, {@code \r}, {@code \t} or {@code \\uXXXX}, and a backslash
 * as {@code \\}, so a client string cannot start a forged log line, rewrite what a terminal shows, hide what follows
 * it, or type what reads as one of these escapes.
 */
public final class LogText {
  private LogText() {
  }

  public static String escaped(String text) {
    return escaped(text, true);
  }

  /**
   * A JSON text with what JSON leaves raw in its strings but some readers take for a line break, a reordering or
   * nothing written as {@code \\uXXXX}: the same value to a JSON parser. JSON's own escapes, backslashes included,
   * stay as they are.
   */
  static String escapedJson(String json) {
    return escaped(json, false);
  }

  private static String escaped(String text, boolean backslashes) {
    if (text == null) {
      return null;
    }
    int first = firstUnsafe(text, backslashes);
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
        case '\\' -> out.append(backslashes ? "\\\\" : "\\");
        default -> {
          if (isUnsafe(text, i)) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.toString();
  }

  private static int firstUnsafe(String text, boolean backslashes) {
    for (int i = 0; i < text.length(); i++) {
      if ((backslashes && text.charAt(i) == '\\') || isUnsafe(text, i)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Whether the character at {@code i} is a C0 or C1 control or DEL, a line or paragraph separator, or a format
   * character (Unicode's Cf: bidirectional controls, zero-width spaces and joiners, U+FEFF, tag characters); of a
   * character beyond the BMP, both halves are.
   */
  private static boolean isUnsafe(String text, int i) {
    char c = text.charAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      return true;
    }
    int type = Character.getType(text.codePointAt(Character.isLowSurrogate(c) && i > 0 ? i - 1 : i));
    return type == Character.FORMAT || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR;
  }
}
