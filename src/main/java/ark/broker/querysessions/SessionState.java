package ark.broker.querysessions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One session: its Queries, and what upstream derives from them (status, errors, when it began and was last
 * active). Its version is the sequence of the last fact that changed it, the same on every replica: where a watch
 * resumes.
 */
final class SessionState {
  /** Queries in the order their first activity was logged (upstream: the order they were first seen). */
  private static final Comparator<QueryState> QUERY_ORDER = Comparator.<QueryState>comparingLong(query -> query.firstSequence)
      .thenComparing(query -> query.name);

  final String id;
  final Map<String, QueryState> queries = new HashMap<>();
  String status = "idle";
  int errorCount;
  long createdAt;
  long lastActivity;
  long version;
  long firstSequence;
  /** Its rendering, until it changes. */
  private byte[] rendered;

  SessionState(String id) {
    this.id = id;
  }

  /** Upstream's display name: the id without a {@code session-} prefix. */
  String name() {
    return id.startsWith("session-") ? id.substring("session-".length()) : id;
  }

  List<QueryState> ordered() {
    List<QueryState> ordered = new ArrayList<>(queries.values());
    ordered.sort(QUERY_ORDER);
    return ordered;
  }

  /** Upstream's {@code recalculateSessionStatus}, from the Queries as they now stand. */
  void recompute() {
    rendered = null;
    List<QueryState> ordered = ordered();
    firstSequence = ordered.isEmpty() ? Long.MAX_VALUE : ordered.get(0).firstSequence;
    createdAt = Long.MAX_VALUE;
    lastActivity = Long.MIN_VALUE;
    errorCount = 0;
    boolean running = false;
    QueryState latest = null;
    for (QueryState query : ordered) {
      createdAt = Math.min(createdAt, query.createdAt);
      lastActivity = Math.max(lastActivity, query.lastActivity);
      errorCount += query.phase == Phase.ERROR ? 1 : 0;
      running |= query.phase == Phase.RUNNING;
      if (latest == null || query.lastActivity > latest.lastActivity) {
        latest = query;
      }
    }
    status = running ? "active" : latest != null && latest.phase == Phase.ERROR ? "error" : "idle";
  }

  /** A conversation it shows changed (a message linked one): the rendering is stale. */
  void relinked() {
    rendered = null;
  }

  /** {@code SessionEntry}, rendered once per change. */
  byte[] rendered(Function<String, String> linkedConversation) {
    if (rendered == null) {
      rendered = SessionJson.entry(this, linkedConversation);
    }
    return rendered;
  }

  /** How many distinct conversations its Queries belong to (upstream's sort by conversations). */
  int conversations(Function<String, String> linkedConversation) {
    return (int) queries.values().stream().map(query -> query.conversationId(linkedConversation.apply(query.name)))
        .filter(conversation -> conversation != null).distinct().count();
  }
}
