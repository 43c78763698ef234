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
  private final long snapshotEveryEvents;
  private final Map<String, Stored> sessions = new HashMap<>();
  private final OwnWrites<Boolean> ownWrites = new OwnWrites<>();
  private long position;
  private long compactedUpTo;
  private boolean live;
  private Future<Void> compaction = Future.succeededFuture();

  /** A session document and the position that wrote it. */
  private record Stored(String document, long position) {
  }

  public SessionStoreVerticle(EventLog log, long snapshotEveryEvents) {
    this.log = log;
    this.snapshotEveryEvents = snapshotEveryEvents;
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
      public void apply(long position, SessionEvent event) {
        onEvent(position, event);
      }
    }).map(replayed -> {
      live = true;
      compactedUpTo = position;
      EventBus bus = vertx.eventBus();
      bus.<SessionRecord>localConsumer(Addresses.SESSIONS_SAVE, m ->
          StoreReplies.respond(m, write(new SessionEvent(m.body().id(), m.body().document(), ownWrites.nextWriter(), false))));
      bus.<DeleteSession>localConsumer(Addresses.SESSIONS_DELETE, m ->
          StoreReplies.respond(m, write(new SessionEvent(m.body().id(), null, ownWrites.nextWriter(), false))));
      bus.<GetSession>localConsumer(Addresses.SESSIONS_GET, m -> {
        Stored stored = sessions.get(m.body().id());
        if (stored == null) {
          m.fail(Failures.NOT_FOUND, "session not found");
        } else {
          m.reply(new SessionRecord(m.body().id(), stored.document()));
        }
      });
      LOG.info("Session store ready: {} MCP sessions", sessions.size());
      return replayed;
    });
  }

  @Override
  public Future<?> stop() {
    return compaction.eventually(log::close);
  }

  private Future<Boolean> write(SessionEvent event) {
    if (event.id() == null || event.id().isBlank()) {
      return Future.failedFuture(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, Failures.BAD_REQUEST, "session id is required"));
    }
    return ownWrites.await(event.writer(), log.append(event.id(), encode(event)));
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
      ownWrites.applied(event.writer(), true);
      compactIfDue();
    }
  }

  private void compactIfDue() {
    if (!compaction.isComplete() || position - compactedUpTo < snapshotEveryEvents) {
      return;
    }
    long upTo = position;
    List<Map.Entry<String, Stored>> state = new ArrayList<>(sessions.entrySet());
    compaction = log.compact(upTo, state, entry -> new LogRecord(entry.getValue().position(), entry.getKey(),
            encode(new SessionEvent(entry.getKey(), entry.getValue().document(), null, true))))
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
