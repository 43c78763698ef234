package ark.broker.store;

import ark.broker.bus.Addresses;
import ark.broker.bus.Failures;
import ark.broker.bus.Messages.DeleteSession;
import ark.broker.bus.Messages.GetSession;
import ark.broker.bus.Messages.SessionRecord;
import ark.broker.log.EventLog;
import ark.broker.log.EventLog.LogRecord;
import ark.broker.question.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps MCP sessions durable and shared: each save is a record of its own log (the session log), so a
 * session survives a restart and, with a shared log, is valid on every replica at once. The store
 * does not read the documents; the MCP surface owns their meaning. Last write wins.
 */
public final class SessionStoreVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(SessionStoreVerticle.class);

  private final EventLog log;
  private final StoreSettings settings;
  private final Map<String, Stored> sessions = new HashMap<>();
  private final AppliedPositions applied = new AppliedPositions();
  private long position;
  private long compactedUpTo;
  private boolean live;
  private Future<Void> compaction = Future.succeededFuture();

  /** A session document and the position that wrote it. */
  private record Stored(String document, long position) {
  }

  public SessionStoreVerticle(EventLog log, StoreSettings settings) {
    this.log = log;
    this.settings = settings;
  }

  @Override
  public Future<?> start() {
    return log.open(new EventLog.RecordSink<SessionEvent>() {
      @Override
      public SessionEvent decode(long position, byte[] payload) {
        try {
          return QuestionJson.MAPPER.readValue(payload, SessionEvent.class);
        } catch (IOException e) {
          throw new IllegalStateException("Session log record at position " + position + " is not a session", e);
        }
      }

      @Override
      public SessionEvent decodeTombstone(long position, String key) {
        return new SessionEvent(key, null, false);
      }

      @Override
      public void apply(long position, SessionEvent event) {
        onEvent(position, event);
      }
    }).map(replayed -> {
      live = true;
      compactedUpTo = position;
      EventBus bus = vertx.eventBus();
      bus.<SessionRecord>localConsumer(Addresses.SESSIONS_SAVE, m -> StoreReplies.respond(m, save(m.body())));
      bus.<DeleteSession>localConsumer(Addresses.SESSIONS_DELETE, m -> StoreReplies.respond(m, delete(m.body().id())));
      bus.<GetSession>localConsumer(Addresses.SESSIONS_GET, m -> StoreReplies.respond(m, find(m.body().id())));
      LOG.info("Session store ready: {} MCP sessions", sessions.size());
      return replayed;
    });
  }

  @Override
  public Future<?> stop() {
    return compaction.eventually(log::close);
  }

  private Future<Boolean> save(SessionRecord session) {
    return requireId(session.id()).compose(id ->
        appliedOnceDurable(log.append(id, encode(new SessionEvent(id, session.document(), false)))));
  }

  private Future<Boolean> delete(String sessionId) {
    return requireId(sessionId).compose(id ->
        appliedOnceDurable(log.remove(id, encode(new SessionEvent(id, null, false)))));
  }

  /** Replies only once this replica applied the write, so its next read sees it. */
  private Future<Boolean> appliedOnceDurable(Future<Long> appended) {
    return ReadBack.within(vertx, settings.readBackTimeoutMillis(), appended, appended.compose(applied::reached))
        .map(true);
  }

  /** A session this replica has not seen may have been created on another a moment ago: catch up first. */
  private Future<SessionRecord> find(String id) {
    Stored stored = sessions.get(id);
    Future<Void> caughtUp = stored != null ? Future.succeededFuture() : log.catchUp()
        .onFailure(failure -> LOG.debug("Could not catch up with the session log to look for a session: {}",
            failure.getMessage()));
    return caughtUp.transform(ignored -> {
      Stored found = sessions.get(id);
      return found == null
          ? Future.failedFuture(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, Failures.NOT_FOUND, "session not found"))
          : Future.succeededFuture(new SessionRecord(id, found.document()));
    });
  }

  private static Future<String> requireId(String id) {
    if (id == null || id.isBlank()) {
      return Future.failedFuture(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, Failures.BAD_REQUEST, "session id is required"));
    }
    return Future.succeededFuture(id);
  }

  private void onEvent(long eventPosition, SessionEvent event) {
    position = Math.max(position, eventPosition);
    if (event.document() == null) {
      sessions.remove(event.id());
    } else {
      sessions.put(event.id(), new Stored(event.document(), eventPosition));
    }
    if (live) {
      vertx.eventBus().publish(Addresses.SESSIONS_CHANGED, new SessionRecord(event.id(), event.document()));
      compactIfDue();
    }
    applied.applied(eventPosition);
  }

  private void compactIfDue() {
    if (!compaction.isComplete() || position - compactedUpTo < settings.snapshotEveryEvents()) {
      return;
    }
    long upTo = position;
    List<Map.Entry<String, Stored>> state = new ArrayList<>(sessions.entrySet());
    compaction = log.compact(upTo, state, entry -> new LogRecord(entry.getValue().position(), entry.getKey(),
            encode(new SessionEvent(entry.getKey(), entry.getValue().document(), true))))
        .onComplete(done -> compactedUpTo = done.succeeded() ? upTo : position);
  }

  private static byte[] encode(SessionEvent event) {
    try {
      return QuestionJson.MAPPER.writeValueAsBytes(event);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
