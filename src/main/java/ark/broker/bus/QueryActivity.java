package ark.broker.bus;

/**
 * What one of the controller's operation events (or a {@code POST /sessions}) says about a Query of a session, as
 * Ark's sessions projection reads it: the fields upstream's {@code applyEvent} looks at, and when it happened.
 *
 * @param reason the event's reason ({@code QueryExecutionStart}, {@code ToolCallError}, ...), or null
 * @param at epoch milliseconds: the event's own {@code timestamp}, or when it was logged when it has none
 * @param error the operation's error, or null
 * @param tool the tool, from {@code tool} or else {@code toolName}
 */
public record QueryActivity(String sessionId, String queryName, String reason, long at, String error, String namespace,
                            String conversationId, String agent, String team, String tool, String targetType) {

  /**
   * What keeping it takes on the heap, about: its texts (a byte a character, two when one is beyond Latin-1), the
   * objects around them, and the texts again as UTF-8 in its session's rendering, which the sessions projection
   * keeps. How the events store and the sessions projection weigh it against their bytes alike.
   */
  public int weight() {
    int bytes = 96;
    for (String text : new String[] {sessionId, queryName, reason, error, namespace, conversationId, agent, team, tool,
        targetType}) {
      bytes += text == null ? 0 : 40 + heldAndRendered(text);
    }
    return bytes;
  }

  private static int heldAndRendered(String text) {
    boolean latin1 = true;
    int utf8 = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      latin1 &= c <= 0xFF;
      utf8 += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
    }
    return (latin1 ? text.length() : 2 * text.length()) + utf8;
  }
}
