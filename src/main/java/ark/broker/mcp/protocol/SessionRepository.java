package ark.broker.mcp.protocol;

import io.vertx.core.Future;

/** Where sessions live. Saving completes once the session is durable and every replica can see it. */
public interface SessionRepository {
  /**
   * Saves the session. Fails with {@link Full} when it is a new session and the repository already
   * holds as many as it may.
   */
  Future<Void> save(McpSession session);

  /** The session, or null if there is none with this id (never created, or ended). */
  Future<McpSession> find(String id);

  Future<Void> delete(String id);

  /** A new session refused because there are as many as allowed; the message says so to the client. */
  final class Full extends RuntimeException {
    public Full(String message) {
      super(message, null, false, false);
    }
  }
}
