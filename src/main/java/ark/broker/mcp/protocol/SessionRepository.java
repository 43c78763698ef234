package ark.broker.mcp.protocol;

import io.vertx.core.Future;

/** Where sessions live. Saving completes once the session is durable and every replica can see it. */
public interface SessionRepository {
  Future<Void> save(McpSession session);

  /** The session, or null if there is none with this id (never created, or ended). */
  Future<McpSession> find(String id);

  Future<Void> delete(String id);
}
