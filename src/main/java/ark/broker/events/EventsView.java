package ark.broker.events;

import ark.broker.bus.EventStore.EventFilter;
import ark.broker.bus.EventStore.FactPage;
import ark.broker.bus.ItemPage;
import ark.broker.bus.SessionFact;
import ark.broker.log.AgingView;
import ark.broker.log.KeyedItems;
import ark.broker.log.RetainedItems;
import ark.broker.log.Sequence;
import ark.broker.log.StoreMeters;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The view of the events log: every event kept, in sequence order and indexed by Query and by session, bounded by
 * the events' age and bytes; and the facts of the sessions projection, bounded by the sessions' own age and bytes
 * and untouched by the events' deletions (upstream's sessions outlive the events they came from). The log may
 * forget what neither keeps. One event loop only.
 */
final class EventsView implements AgingView<EventRecord, EventsView.Kept> {
  private final EventSettings settings;
  private final StoreMeters meters;
  private final RetainedItems<StoredEvent> events = new RetainedItems<>();
  private final KeyedItems<StoredEvent> byQuery = new KeyedItems<>();
  private final KeyedItems<StoredEvent> bySession = new KeyedItems<>();
  private final RetainedItems<KeptFact> facts = new RetainedItems<>();
  /** The newest purge of the sessions, which a projection behind it must learn of first; or null. */
  private SessionFact.Purged purged;
  private long applied;

  /** What applying a record kept: the event and the fact, either possibly null. */
  record Kept(StoredEvent event, SessionFact fact) {
  }

  EventsView(EventSettings settings, StoreMeters meters) {
    this.settings = settings;
    this.meters = meters;
  }

  @Override
  public Kept apply(long position, EventRecord record, long now) {
    applied = Math.max(applied, position);
    Kept kept = new Kept(null, null);
    if (record instanceof EventRecord.Posted posted) {
      StoredEvent event = StoredEvent.of(position, posted);
      events.add(event);
      byQuery.add(event.queryId, event);
      bySession.add(event.sessionId, event);
      meters.appended();
      kept = new Kept(event, posted.activity() == null ? null : keep(position, posted.at(), posted));
    } else if (record instanceof EventRecord.ActivityRecorded recorded) {
      kept = new Kept(null, keep(position, recorded.at(), recorded));
    } else if (record instanceof EventRecord.QueryDeleted deleted) {
      events.dropAll(byQuery.of(deleted.queryId()), event -> true, this::forget);
    } else if (record instanceof EventRecord.QueryAttached attached) {
      SessionFact.QueryAttached fact = new SessionFact.QueryAttached(position, record.at(), attached.queryName(),
          attached.conversationId());
      facts.add(new KeptFact(fact));
      kept = new Kept(null, fact);
    } else if (record instanceof EventRecord.SessionQueryForgotten forgotten) {
      // Kept as the activities are: a projection that applied them learns of this on its next pull.
      SessionFact.QueryForgotten fact = new SessionFact.QueryForgotten(position, record.at(), forgotten.sessionId(),
          forgotten.queryName());
      facts.add(new KeptFact(fact));
      kept = new Kept(null, fact);
    } else if (record instanceof EventRecord.Purged) {
      events.dropAll(events.all(), event -> true, this::forget);
    } else {
      facts.all().kept().forEach(facts::drop);
      purged = new SessionFact.Purged(position, record.at());
      kept = new Kept(null, purged);
    }
    trim(now);
    return kept;
  }

  private SessionFact.Activity keep(long position, long at, EventRecord record) {
    SessionFact.Activity fact = new SessionFact.Activity(position, at, record instanceof EventRecord.Posted posted
        ? posted.activity() : ((EventRecord.ActivityRecorded) record).activity());
    facts.add(new KeptFact(fact));
    return fact;
  }

  /** Drops what has aged out, grown beyond the bytes allowed, or expired. */
  @Override
  public void trim(long now) {
    events.trim(now, settings.maxBytes(), settings.maxAgeMillis(), this::forget);
    facts.trim(now, settings.factsMaxBytes(), settings.factsMaxAgeMillis(), fact -> { });
  }

  /** Up to where the events log may forget: what is older than every event and every fact kept. */
  @Override
  public long floor() {
    return Math.min(floorOf(events), floorOf(facts));
  }

  private long floorOf(RetainedItems<?> items) {
    return items.all().isEmpty() ? applied : items.floor();
  }

  int size() {
    return events.size();
  }

  long bytes() {
    return events.bytes();
  }

  int facts() {
    return facts.size();
  }

  /** The page a read asks for; the caller trims first. */
  ItemPage events(EventFilter filter, long cursor, int limit) {
    Sequence<StoredEvent> candidates;
    long total;
    if (filter.queryId() != null) {
      candidates = byQuery.of(filter.queryId());
      total = filter.sessionId() == null ? byQuery.count(filter.queryId()) : count(candidates, filter);
    } else if (filter.sessionId() != null) {
      candidates = bySession.of(filter.sessionId());
      total = bySession.count(filter.sessionId());
    } else {
      candidates = events.all();
      total = events.size();
    }
    return ItemPage.after(candidates, cursor, limit, total, event -> matches(event, filter), event -> event.item);
  }

  /** The facts after {@code cursor}: the newest purge first when it is after the cursor, then the activities. */
  FactPage facts(long cursor, int limit) {
    List<SessionFact> page = new ArrayList<>(Math.min(limit, 1024));
    if (purged != null && purged.sequence() > cursor) {
      page.add(purged);
    }
    Sequence<KeptFact> all = facts.all();
    for (int i = all.firstAfter(cursor); i < all.size(); i++) {
      if (all.get(i).dropped()) {
        continue;
      }
      if (page.size() == limit) {
        return new FactPage(page, true);
      }
      page.add(all.get(i).fact);
    }
    return new FactPage(page, false);
  }

  private static boolean matches(StoredEvent event, EventFilter filter) {
    return (filter.queryId() == null || filter.queryId().equals(event.queryId))
        && (filter.sessionId() == null || filter.sessionId().equals(event.sessionId));
  }

  private static long count(Sequence<StoredEvent> candidates, EventFilter filter) {
    long count = 0;
    for (int i = 0; i < candidates.size(); i++) {
      if (!candidates.get(i).dropped() && Objects.equals(filter.sessionId(), candidates.get(i).sessionId)) {
        count++;
      }
    }
    return count;
  }

  /** Takes a dropped event out of the indexes. */
  private void forget(StoredEvent event) {
    byQuery.dropped(event.queryId);
    bySession.dropped(event.sessionId);
    meters.dropped();
  }
}
