package ark.broker.events;

import ark.broker.access.ArkBrokerAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.EventStore;
import ark.broker.bus.ItemPage;
import ark.broker.bus.ItemTtl;
import ark.broker.bus.Messages.EventAppended;
import ark.broker.bus.QueryActivity;
import ark.broker.log.AgingStore;
import ark.broker.log.EventLog;
import ark.broker.log.StoreMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.function.Supplier;

/**
 * Query operation events and the facts of Ark's sessions: the only writer of the events log, and the view of it
 * ({@link EventsView}). A write is acknowledged once durable and applied here; every replica applies the log alike,
 * so any replica serves any read, and a read catches up with the log first, so it sees what another replica
 * acknowledged. Events and facts leave by age and by bytes, and the log forgets them with its next snapshot.
 */
public final class EventsVerticle extends VerticleBase implements EventStore {
  private static final Logger LOG = LoggerFactory.getLogger(EventsVerticle.class);

  private final EventLog log;
  private final EventSettings settings;
  private final Clock clock;
  private final MeterRegistry meters;
  private EventsView view;
  /** A write learns the position its record was applied at: an event's sequence. */
  private AgingStore<EventRecord, EventsView.Kept> events;

  public EventsVerticle(EventLog log, EventSettings settings, Clock clock, MeterRegistry meters) {
    this.log = log;
    this.settings = settings;
    this.clock = clock;
    this.meters = meters;
  }

  @Override
  public Future<?> start() {
    view = new EventsView(settings, new StoreMeters(meters, "events", this, verticle -> verticle.view.size(),
        verticle -> verticle.view.bytes()));
    events = new AgingStore<>(vertx, log, "events", EventRecord.CODEC, settings.snapshotEveryRecords(),
        settings.readBackTimeoutMillis(), clock, meters, view);
    return events.open(kept -> {
      if (kept.event() != null) {
        vertx.eventBus().publish(Addresses.EVENTS_APPENDED, new EventAppended(kept.event().position(),
            kept.event().queryId, kept.event().sessionId, kept.event().item));
      }
      if (kept.fact() != null) {
        vertx.eventBus().publish(Addresses.SESSION_FACTS, kept.fact());
      }
    }).map(replayed -> {
      Addresses.EVENT_STORE.serve(vertx.eventBus(), this);
      LOG.info("Events ready: {} events and {} facts of sessions", view.size(), view.facts());
      return null;
    });
  }

  @Override
  public Future<?> stop() {
    return events.close();
  }

  @Override
  public Future<Long> append(Actor actor, NewEvent event) {
    return ArkBrokerAccess.guarded(actor, () -> {
      long now = clock.millis();
      long visible = ItemTtl.visibleMillis(event.ttlSeconds(), settings.maxAgeMillis());
      EventRecord.Posted posted = new EventRecord.Posted(event.queryId(), event.sessionId(), now, now + visible,
          event.event(), event.activity());
      return events.append(posted.key(), posted);
    });
  }

  @Override
  public Future<Long> recordActivity(Actor actor, QueryActivity activity) {
    return write(actor, new EventRecord.ActivityRecorded(clock.millis(), activity));
  }

  @Override
  public Future<ItemPage> events(Actor actor, EventFilter filter, long cursor, int limit) {
    return read(actor, () -> view.events(filter, cursor, limit));
  }

  @Override
  public Future<Void> deleteQueryEvents(Actor actor, String queryId) {
    return write(actor, new EventRecord.QueryDeleted(queryId, clock.millis())).mapEmpty();
  }

  @Override
  public Future<Void> deleteAll(Actor actor) {
    return write(actor, new EventRecord.Purged(clock.millis())).mapEmpty();
  }

  @Override
  public Future<Void> attachQuery(Actor actor, String queryName, String conversationId) {
    return write(actor, new EventRecord.QueryAttached(queryName, conversationId, clock.millis())).mapEmpty();
  }

  @Override
  public Future<Void> forgetSessionQuery(Actor actor, String sessionId, String queryName) {
    return write(actor, new EventRecord.SessionQueryForgotten(sessionId, queryName, clock.millis())).mapEmpty();
  }

  @Override
  public Future<Void> purgeSessions(Actor actor) {
    return write(actor, new EventRecord.SessionsPurged(clock.millis())).mapEmpty();
  }

  @Override
  public Future<FactPage> facts(Actor actor, long cursor, int limit) {
    return read(actor, () -> view.facts(cursor, limit));
  }

  private Future<Long> write(Actor actor, EventRecord record) {
    return ArkBrokerAccess.guarded(actor, () -> events.append(record.key(), record));
  }

  /** What another replica acknowledged a moment ago is read here too; what has aged out is not. */
  private <T> Future<T> read(Actor actor, Supplier<T> reading) {
    return ArkBrokerAccess.guarded(actor, () -> events.read(reading));
  }
}
