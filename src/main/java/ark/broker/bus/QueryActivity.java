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
   * About what keeping it takes on the heap (its texts and the objects around them): how the events store and the
   * sessions projection weigh it against their bytes alike.
   */
  public int weight() {
    int chars = 0;
    for (String text : new String[] {sessionId, queryName, reason, error, namespace, conversationId, agent, team, tool,
        targetType}) {
      chars += text == null ? 0 : 40 + text.length();
    }
    return 96 + chars;
  }
}
