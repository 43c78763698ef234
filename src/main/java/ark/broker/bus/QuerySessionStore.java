package ark.broker.bus;

import ark.broker.auth.Actor;
import io.vertx.core.Future;

import java.util.List;

/**
 * Ark's sessions: the projection of the controller's events, the {@code POST /sessions} updates and the messages of
 * conversation memory into sessions, their Queries (with their phases), conversations and participants, as ark-api
 * and the dashboard read them ({@code GET /sessions}). Every replica derives the same sessions from the same logs;
 * a Query's phase follows its events' own timestamps, not the order they arrived in. Every read first applies what
 * the logs hold, so it sees every write acknowledged before it. Writes go to the {@link EventStore}. Served over the
 * bus at {@link Addresses#QUERY_SESSION_STORE}; changes are published on {@link Addresses#QUERY_SESSIONS_CHANGED}.
 */
public interface QuerySessionStore {
  /** The session as upstream's {@code SessionEntry} renders it, or null when there is none. */
  Future<byte[]> session(Actor actor, String sessionId);

  /**
   * Every session, as {@code {"sessions":{"<id>":SessionEntry,...}}} in the order they began: its pieces, to be sent
   * one after the other, the sessions' renderings as the store holds them rather than copied into one.
   */
  Future<List<byte[]>> all(Actor actor);

  /** A page of the sessions the query selects, in its order, with the status counts of all it selects. */
  Future<SessionPage> page(Actor actor, SessionQuery query);

  /** The ids of the sessions that list the Query, once this replica has caught up with the stores. */
  Future<List<String>> sessionsOf(Actor actor, String queryName);

  /**
   * The sessions (one, or all when {@code sessionId} is null) that changed after {@code cursor}, in the order of
   * their last change, as the watch sends them: {@code {"sessionId","session","sequence"}}; at most {@code limit}.
   */
  Future<ItemPage> changes(Actor actor, String sessionId, long cursor, int limit);

  /**
   * Which sessions a page holds.
   *
   * @param status {@code active}, {@code idle} or {@code error}, or null for any
   * @param sort {@code date}, {@code name} or {@code conversations}, or null for the order they began
   * @param activeFrom epoch milliseconds the last activity is at or after, or null
   * @param activeTo epoch milliseconds the last activity is at or before, or null
   * @param search a text the session's id or name, or an agent, team or tool of its Queries, contains (any case)
   * @param offset how many of the selected sessions come before the page
   */
  record SessionQuery(String status, String sort, boolean descending, Long activeFrom, Long activeTo, String search,
                      int offset, int limit) {
  }

  /** @param nextOffset where the next page starts, when there is more */
  record SessionPage(List<byte[]> items, int total, boolean hasMore, int nextOffset, StatusCounts statusCounts) {
    public SessionPage {
      items = List.copyOf(items);
    }
  }

  record StatusCounts(int active, int idle, int error) {
  }
}
