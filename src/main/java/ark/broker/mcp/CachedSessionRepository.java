package ark.broker.mcp;

import ark.broker.auth.Principal;
import ark.broker.bus.McpSessionStore;
import ark.broker.bus.Messages.SessionRecord;
import ark.broker.bus.StoreFailure;
import ark.broker.mcp.protocol.ClientAuthentication;
import ark.broker.mcp.protocol.McpSession;
import ark.broker.mcp.protocol.SessionRepository;
import io.vertx.core.Future;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * MCP sessions kept by the store's session log, so every replica knows every session.
 *
 * <p>Every MCP request names its session, so sessions are read far more than written. This keeps the
 * most recently used ones in memory, kept current by the store's published changes (which also carry
 * the changes other replicas make), and asks the store only on a miss.
 */
final class CachedSessionRepository implements SessionRepository {
  private final McpSessionStore store;
  private final Map<String, McpSession> recent;

  CachedSessionRepository(McpSessionStore store, int capacity) {
    this.store = store;
    this.recent = new LinkedHashMap<>(1024, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, McpSession> eldest) {
        return size() > capacity;
      }
    };
  }

  /** The store refuses a new session beyond its limit (FORBIDDEN, as a quota): {@link Full}, in the store's words. */
  @Override
  public Future<Void> save(McpSession session) {
    return store.save(session.id(), session.toJson())
        .recover(failure -> Future.failedFuture(asFull(failure)))
        .onSuccess(saved -> recent.put(session.id(), session));
  }

  private static Throwable asFull(Throwable failure) {
    return StoreFailure.is(failure, StoreFailure.Reason.FORBIDDEN) ? new Full(failure.getMessage()) : failure;
  }

  /**
   * The session counts against the principal that initialized it (over its budget: {@link OwnerFull}, in the
   * store's words) and against the total.
   */
  @Override
  public Future<Void> start(McpSession session, ClientAuthentication.ClientIdentity identity) {
    Principal owner = ((McpCredentials) identity.credentials()).grant().principal();
    return store.start(owner, session.id(), session.toJson())
        .recover(failure -> Future.failedFuture(StoreFailure.is(failure, StoreFailure.Reason.TOO_MANY_REQUESTS)
            ? new OwnerFull(failure.getMessage()) : asFull(failure)))
        .onSuccess(saved -> recent.put(session.id(), session));
  }

  @Override
  public Future<McpSession> find(String id) {
    McpSession cached = recent.get(id);
    if (cached != null) {
      return Future.succeededFuture(cached);
    }
    // The store replies and publishes from one event loop, in order: a deletion published after this
    // read reaches changed() after the reply, so a session ended meanwhile does not stay cached.
    return store.find(id).map(document -> {
      if (document == null) {
        return null;
      }
      McpSession found = McpSession.fromJson(document);
      recent.put(id, found);
      return found;
    });
  }

  @Override
  public Future<Void> delete(String id) {
    return store.delete(id).onSuccess(deleted -> recent.remove(id));
  }

  /** A session changed or ended, here or on another replica. */
  void changed(SessionRecord record) {
    if (record.document() == null) {
      recent.remove(record.id());
    } else if (recent.containsKey(record.id())) {
      recent.put(record.id(), McpSession.fromJson(record.document()));
    }
  }
}
