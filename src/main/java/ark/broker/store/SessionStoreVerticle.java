package ark.broker.store;

import ark.broker.auth.Principal;
import ark.broker.bus.Addresses;
import ark.broker.bus.McpSessionStore;
import ark.broker.bus.Messages.SessionRecord;
import ark.broker.bus.SessionIdle;
import ark.broker.bus.StoreFailure;
import ark.broker.bus.WorkerRole;
import ark.broker.log.EventLog;
import ark.broker.log.LogBackedView;
import ark.broker.log.RecordCodec;
import ark.broker.reconcile.Backoff;
import ark.broker.reconcile.PeriodicPass;
import ark.broker.wire.QuestionJson;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * starts a new one; its tasks are questions, which stay). Sessions are bounded in total and, by the
 * {@link Budgets}, per principal that started them.
 */
public final class SessionStoreVerticle extends VerticleBase implements McpSessionStore {
  private static final Logger LOG = LoggerFactory.getLogger(SessionStoreVerticle.class);

  private final EventLog log;
  private final StoreSettings settings;
  private final Duration idleTimeout;
  private final int maxSessions;
  private final Budgets budgets;
  private final Clock clock;
  private final MeterRegistry meters;
  private final Instant started;
  private final Map<String, Stored> sessions = new HashMap<>();
  /** How many sessions each principal started (by name), as the log has them. */
  private final Map<String, Integer> sessionsByOwner = new HashMap<>();
  /** New sessions being written, with their owners (or null): they count towards the limits before the log has them. */
  private final Map<String, String> starting = new HashMap<>();
  private LogBackedView<SessionEvent, Boolean> sessionLog;
  private PeriodicPass idleSessions;

  /** A session document, its owner, the position that wrote it, and when it was saved (if known). */
  private record Stored(String document, String owner, long position, Instant at) {
  }

  /**
   * @param idleTimeout sessions not saved for this long end; zero keeps them until the client ends them
   * @param maxSessions how many sessions may exist at once; a new one beyond is refused
   * @param budgets how many of them one principal may have
   */
  public SessionStoreVerticle(EventLog log, StoreSettings settings, Duration idleTimeout, int maxSessions,
                              Budgets budgets, Clock clock, MeterRegistry meters) {
    this.log = log;
    this.settings = settings;
    this.idleTimeout = idleTimeout;
    this.maxSessions = maxSessions;
    this.budgets = budgets;
    this.clock = clock;
    this.meters = meters;
    this.started = clock.instant();
  }

  @Override
  public Future<?> start() {
    sessionLog = new LogBackedView<>(vertx, log, "sessions",
        RecordCodec.json(QuestionJson.logReader(SessionEvent.class), QuestionJson.LOG_WRITER), SessionEvent::restated,
        settings.snapshotEveryEvents(), settings.readBackTimeoutMillis(), meters);
    return sessionLog.open(new LogBackedView.Updates<>() {
      @Override
      public Boolean apply(long position, SessionEvent event) {
        onEvent(position, event);
        return true;
      }

      @Override
      public SessionEvent ended(String key) {
        return new SessionEvent(key, null, null, false, null);
      }

      @Override
      public LogBackedView.Snapshot<SessionEvent> snapshot(long position) {
        return new LogBackedView.Snapshot<>(position, sessions.entrySet().stream().map(entry -> new LogBackedView.Restatement<>(
            entry.getValue().position(), entry.getKey(), new SessionEvent(entry.getKey(), entry.getValue().document(),
            entry.getValue().owner(), true, entry.getValue().at())))
            .toList());
      }
    }).map(replayed -> {
      EventBus bus = vertx.eventBus();
      Addresses.MCP_SESSION_STORE.serve(bus, this);
      if (!idleTimeout.isZero()) {
        long period = SessionIdle.period(idleTimeout).toMillis();
        idleSessions = new PeriodicPass(vertx, "Ending idle MCP sessions", period, new Backoff(period, period),
            this::endIdleSessions);
        WorkerRole.follow(bus, idleSessions::setActive);
      }
      LOG.info("Session store ready: {} MCP sessions", sessions.size());
      return null;
    });
  }

  @Override
  public Future<?> stop() {
    if (idleSessions != null) {
      idleSessions.stop();
    }
    return sessionLog.close();
  }

  /**
   * A new session, refused (TOO_MANY_REQUESTS) when its owner already has as many as its budget allows. Sessions
   * count against the principal that initialized them: a service's sessions are its own, whichever agents it acts for.
   */
  @Override
  public Future<Void> start(Principal owner, String sessionId, String document) {
    return requireId(sessionId).compose(id -> {
      int most = budgets.of(owner).maxMcpSessions();
      if (Budget.full(most, owned(owner.name()))) {
        return Future.failedFuture(new StoreFailure(StoreFailure.Reason.TOO_MANY_REQUESTS, owner.name() + " already has "
            + Budget.count(most, "MCP session") + ", the most its budget allows; end one (DELETE) or wait until an unused one ends"));
      }
      return append(id, document, owner.name());
    });
  }

  /** Saves a session again; one this store no longer holds (it ended meanwhile) starts again, with no owner to count. */
  @Override
  public Future<Void> save(String sessionId, String document) {
    return requireId(sessionId).compose(id -> {
      Stored stored = sessions.get(id);
      return append(id, document, stored != null ? stored.owner() : starting.get(id));
    });
  }

  /** A new session beyond the limit in total is refused (FORBIDDEN, as a quota); saving one that exists always goes through. */
  private Future<Void> append(String id, String document, String owner) {
    boolean added = !sessions.containsKey(id) && !starting.containsKey(id);
    if (added && sessions.size() + starting.size() >= maxSessions) {
      return Future.failedFuture(new StoreFailure(StoreFailure.Reason.FORBIDDEN, "the broker already holds "
          + maxSessions + " MCP sessions, the most it may; try again once others have ended"));
    }
    if (added) {
      starting.put(id, owner);
    }
    return sessionLog.append(id, new SessionEvent(id, document, owner, false, clock.instant()))
        .onComplete(done -> {
          if (added) {
            starting.remove(id);
          }
        })
        .mapEmpty();
  }

  /** The sessions {@code owner} has, with those being written. */
  private long owned(String owner) {
    return sessionsByOwner.getOrDefault(owner, 0) + starting.values().stream().filter(owner::equals).count();
  }

  @Override
  public Future<Void> delete(String sessionId) {
    return requireId(sessionId).compose(id -> sessionLog.remove(id, new SessionEvent(id, null, null, false, null)))
        .mapEmpty();
  }

  @Override
  public Future<String> unwritable() {
    return Future.succeededFuture(log.cannotWrite());
  }

  /** A session this replica has not seen may have been created on another a moment ago: catch up first. */
  @Override
  public Future<String> find(String id) {
    Future<Void> caughtUp = sessions.containsKey(id) ? Future.succeededFuture() : sessionLog.catchUp();
    return caughtUp.map(ignored -> {
      Stored found = sessions.get(id);
      return found == null ? null : found.document();
    });
  }

  /** On the worker: ends the sessions nobody has used for the idle timeout. */
  private Future<Void> endIdleSessions() {
    Instant cutoff = clock.instant().minus(idleTimeout);
    List<String> idle = new ArrayList<>();
    sessions.forEach((id, stored) -> {
      // A record from before sessions had times counts from this process's start.
      if ((stored.at() == null ? started : stored.at()).isBefore(cutoff)) {
        idle.add(id);
      }
    });
    if (idle.isEmpty()) {
      return Future.succeededFuture();
    }
    return Future.join(idle.stream().map(this::delete).toList())
        .onComplete(done -> LOG.info("Ended {} MCP sessions unused for more than {}", idle.size(), idleTimeout))
        .mapEmpty();
  }

  private static Future<String> requireId(String id) {
    if (id == null || id.isBlank()) {
      return Future.failedFuture(new StoreFailure(StoreFailure.Reason.INVALID, "session id is required"));
    }
    return Future.succeededFuture(id);
  }

  private void onEvent(long position, SessionEvent event) {
    Stored previous = event.document() == null ? sessions.remove(event.id())
        : sessions.put(event.id(), new Stored(event.document(), event.owner(), position, event.at()));
    if (previous != null) {
      countOwned(previous.owner(), -1);
    }
    if (event.document() != null) {
      countOwned(event.owner(), 1);
    }
    if (sessionLog.isLive()) {
      vertx.eventBus().publish(Addresses.SESSIONS_CHANGED, new SessionRecord(event.id(), event.document()));
    }
  }

  private void countOwned(String owner, int change) {
    if (owner != null) {
      sessionsByOwner.merge(owner, change, (count, more) -> count + more == 0 ? null : count + more);
    }
  }
}
