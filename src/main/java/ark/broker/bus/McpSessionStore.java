package ark.broker.bus;

import ark.broker.auth.Principal;
import io.vertx.core.Future;

/**
 * The MCP session store, as the MCP surface reaches it over the bus ({@link Addresses#MCP_SESSION_STORE}): each
 * session is a JSON document the MCP surface writes and the store keeps without reading it. Writes complete once
 * durable and applied on this replica, and their changes are published on {@link Addresses#SESSIONS_CHANGED}.
 */
public interface McpSessionStore {
  /**
   * Keeps a session that {@code initialize} just started, counted against the limit of sessions in total (else
   * {@link StoreFailure.Reason#FORBIDDEN}) and against its {@code owner}'s budget of sessions (else
   * {@link StoreFailure.Reason#TOO_MANY_REQUESTS}).
   */
  Future<Void> start(Principal owner, String id, String document);

  /** Saves the session's document again; one that ended meanwhile starts again, within the limit in total. */
  Future<Void> save(String id, String document);

  /** The session's document, or null if there is no such session. */
  Future<String> find(String id);

  Future<Void> delete(String id);

  /** Null while the session log takes writes, else why it does not (the question store's status includes it). */
  Future<String> unwritable();
}
