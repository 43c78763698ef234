package ark.broker.bus;

import ark.broker.auth.Actor;
import io.vertx.core.Future;

import java.util.List;

/**
 * Query operation events, as Ark's controller posts them and ark-api and the dashboard read them (the
 * {@code /events} routes of Ark's broker), and the facts of Ark's sessions projection: each event, each
 * {@code POST /sessions} and each purge of the sessions, in the events log. An event's sequence is its position in
 * that log, so cursors are stable across replicas, restarts and purges. Served over the bus at
 * {@link Addresses#EVENT_STORE}; events are published on {@link Addresses#EVENTS_APPENDED} and facts on
 * {@link Addresses#SESSION_FACTS}. Refusals fail with a {@link StoreFailure}.
 */
public interface EventStore {
  /** Appends an event; completes with its sequence once it is durable and applied on this replica. */
  Future<Long> append(Actor actor, NewEvent event);

  /** Records what a {@code POST /sessions} says, for the sessions projection only: it is no event. */
  Future<Long> recordActivity(Actor actor, QueryActivity activity);

  /**
   * The events the filter matches with a sequence above {@code cursor}, in sequence order, rendered as Ark's broker
   * renders them plus their {@code sequence}; at most {@code limit} of them, or all when {@code limit} is 0.
   */
  Future<ItemPage> events(Actor actor, EventFilter filter, long cursor, int limit);

  /** Deletes a Query's events (by its UID); the sessions keep what they learnt from them. */
  Future<Void> deleteQueryEvents(Actor actor, String queryId);

  /** Deletes every event; sequences go on where they were, and the sessions keep what they learnt. */
  Future<Void> deleteAll(Actor actor);

  /** Says which conversation a Query belongs to before it wrote a message, for the sessions projection only. */
  Future<Void> attachQuery(Actor actor, String queryName, String conversationId);

  /** Takes a Query out of a session: the projection drops every fact of it there before this one. */
  Future<Void> forgetSessionQuery(Actor actor, String sessionId, String queryName);

  /** Forgets every session: the projection drops every fact before this one. */
  Future<Void> purgeSessions(Actor actor);

  /**
   * The facts kept for the sessions projection after {@code cursor}, at most {@code limit} of them, once this replica
   * has caught up with the log: what a projection applies to see every write acknowledged anywhere before.
   */
  Future<FactPage> facts(Actor actor, long cursor, int limit);

  /**
   * One {@code POST /events}.
   *
   * @param event the event as compact JSON, exactly as it will be read back ({@code data} first, without
   *     {@code ttl_seconds})
   * @param sessionId its {@code data.sessionId}, or null
   * @param ttlSeconds how long it stays visible, or null for the store's default
   * @param activity what it says about a Query of a session, or null when it names none
   */
  record NewEvent(String queryId, String sessionId, byte[] event, Long ttlSeconds, QueryActivity activity) {
  }

  /** Which events a read wants: any or all of a Query (by UID) and a session (null: any). */
  record EventFilter(String queryId, String sessionId) {
  }

  /** @param hasMore whether more facts follow the last of these */
  record FactPage(List<SessionFact> facts, boolean hasMore) {
    public FactPage {
      facts = List.copyOf(facts);
    }
  }
}
