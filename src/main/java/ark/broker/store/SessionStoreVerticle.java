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
import ark.broker.bus.SessionIdle;
import ark.broker.bus.WorkerRole;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps MCP sessions durable and shared: each save is a record of its own log (the session log), so a
 * session survives a restart and, with a shared log, is valid on every replica at once. The store
 * does not read the documents; the MCP surface owns their meaning. Last write wins. Sessions not saved
 * for the idle timeout are ended by the worker, so abandoned ones do not pile up forever (the MCP
 * surface saves a session now and then while it is used; an ended one answers 404 and the client
 * starts a new one; its tasks are questions, which stay).
 */
public final class SessionStoreVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(SessionStoreVerticle.class);

  private final EventLog log;
  private final StoreSettings settings;
  private final Duration idleTimeout;
  private final Clock clock;
  private final Instant started;
  private boolean worker;
  private final Map<String, Stored> sessions = new HashMap<>();
  private final AppliedPositions applied = new AppliedPositions();
  private long position;
  private long compactedUpTo;
  private boolean live;
  private Future<Void> compaction = Future.succeededFuture();

  /** A session document, the position that wrote it, and when it was saved (if known). */
  private record Stored(String document, long position, Instant at) {
  }

  /** @param idleTimeout sessions not saved for this long end; zero keeps them until the client ends them */
  public SessionStoreVerticle(EventLog log, StoreSettings settings, Duration idleTimeout, Clock clock) {
    this.log = log;
    this.settings = settings;
    this.idleTimeout = idleTimeout;
    this.clock = clock;
    this.started = clock.instant();
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
        return new SessionEvent(key, null, false, null);
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
      if (!idleTimeout.isZero()) {
        WorkerRole.follow(bus, active -> worker = active);
        vertx.setPeriodic(SessionIdle.period(idleTimeout).toMillis(), tick -> endIdleSessions());
      }
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
        appliedOnceDurable(log.append(id, encode(new SessionEvent(id, session.document(), false, clock.instant())))));
  }

  private Future<Boolean> delete(String sessionId) {
    return requireId(sessionId).compose(id ->
        appliedOnceDurable(log.remove(id, encode(new SessionEvent(id, null, false, null)))));
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

  /** On the worker: ends the sessions nobody has used for the idle timeout. */
  private void endIdleSessions() {
    if (!worker) {
      return;
    }
    Instant cutoff = clock.instant().minus(idleTimeout);
    List<String> idle = new ArrayList<>();
    sessions.forEach((id, stored) -> {
      // A record from before sessions had times counts from this process's start.
      if ((stored.at() == null ? started : stored.at()).isBefore(cutoff)) {
        idle.add(id);
      }
    });
    if (idle.isEmpty()) {
      return;
    }
    Future.all(idle.stream().map(this::delete).toList()).onComplete(done -> LOG.info(
        "Ended {} MCP sessions unused for more than {}", idle.size(), idleTimeout));
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
      sessions.put(event.id(), new Stored(event.document(), eventPosition, event.at()));
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
            encode(new SessionEvent(entry.getKey(), entry.getValue().document(), true, entry.getValue().at()))))
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
