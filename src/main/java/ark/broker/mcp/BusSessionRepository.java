package ark.broker.mcp;

import ark.broker.bus.Addresses;
import ark.broker.bus.Failures;
import ark.broker.bus.Messages.DeleteSession;
import ark.broker.bus.Messages.GetSession;
import ark.broker.bus.Messages.SessionRecord;
import ark.broker.mcp.protocol.McpSession;
import ark.broker.mcp.protocol.SessionRepository;
import io.vertx.core.Future;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;

/** MCP sessions kept by the store's session log, so every replica knows every session. */
final class BusSessionRepository implements SessionRepository {
  private final EventBus bus;
  private final DeliveryOptions options;

  BusSessionRepository(EventBus bus, long timeoutMillis) {
    this.bus = bus;
    this.options = new DeliveryOptions().setSendTimeout(timeoutMillis);
  }

  @Override
  public Future<Void> save(McpSession session) {
    return bus.request(Addresses.SESSIONS_SAVE, new SessionRecord(session.id(), session.toJson()), options).mapEmpty();
  }

  @Override
  public Future<McpSession> find(String id) {
    return bus.<SessionRecord>request(Addresses.SESSIONS_GET, new GetSession(id), options)
        .map(reply -> McpSession.fromJson(reply.body().document()))
        .recover(failure -> Failures.codeOf(failure) == Failures.NOT_FOUND
            ? Future.succeededFuture(null) : Future.failedFuture(failure));
  }

  @Override
  public Future<Void> delete(String id) {
    return bus.request(Addresses.SESSIONS_DELETE, new DeleteSession(id), options).mapEmpty();
  }
}
