package ark.broker.bus;

/**
 * What the events log holds for Ark's sessions projection, in sequence order: activity of a Query of a session, the
 * conversation of a Query that wrote no message yet, a Query forgotten, or the purge of every session. Each replica's projection derives the same sessions from the same facts.
 */
public sealed interface SessionFact {
  /** Its position in the events log. */
  long sequence();

  /** Epoch milliseconds its record was logged at (the writer's clock): how old it is, alike on every replica. */
  long loggedAt();

  record Activity(long sequence, long loggedAt, QueryActivity activity) implements SessionFact {
  }

  /**
   * {@code POST /messages} with no message: which conversation the Query belongs to, as a message would say
   * (upstream's {@code applyMessage}).
   */
  record QueryAttached(long sequence, long loggedAt, String queryName, String conversationId) implements SessionFact {
  }

  /**
   * {@code DELETE /sessions/queries/{query}}, one for each session that listed the Query: it leaves the session, with
   * every fact of it there before this one.
   */
  record QueryForgotten(long sequence, long loggedAt, String sessionId, String queryName) implements SessionFact {
  }

  /** {@code DELETE /sessions}: every fact before it is forgotten. */
  record Purged(long sequence, long loggedAt) implements SessionFact {
  }
}
