package ark.broker.mcp.protocol;

import io.vertx.core.Future;

/** Where sessions live. Saving completes once the session is durable and every replica can see it. */
public interface SessionRepository {
  /**
   * Saves the session. Fails with {@link Full} when it is a new session and the repository already
   * holds as many as it may.
   */
  Future<Void> save(McpSession session);

  /**
   * Saves the session {@code initialize} just started for {@code identity}. Fails with {@link Full} when the
   * repository already holds as many sessions as it may, or with {@link OwnerFull} when that client has as many as
   * it may.
   */
  Future<Void> start(McpSession session, ClientAuthentication.ClientIdentity identity);

  /** The session, or null if there is none with this id (never created, or ended). */
  Future<McpSession> find(String id);

  Future<Void> delete(String id);

  /** A new session refused because there are as many as allowed; the message says so to the client. */
  final class Full extends RuntimeException {
    public Full(String message) {
      super(message, null, false, false);
    }
  }

  /** A new session refused because its client has as many as it may; the message says so to the client. */
  final class OwnerFull extends RuntimeException {
    public OwnerFull(String message) {
      super(message, null, false, false);
    }
  }
}
