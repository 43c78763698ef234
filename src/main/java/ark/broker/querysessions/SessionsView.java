package ark.broker.querysessions;

import ark.broker.bus.ItemPage;
import ark.broker.bus.QuerySessionStore.SessionPage;
import ark.broker.bus.QuerySessionStore.SessionQuery;
import ark.broker.bus.QuerySessionStore.StatusCounts;
import ark.broker.bus.SessionFact;
import ark.broker.log.RetainedItems;
import ark.broker.log.StoreMeters;
import com.fasterxml.jackson.core.io.JsonStringEncoder;

import java.nio.charset.StandardCharsets;
import java.text.Collator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The sessions, projected from the facts of the events log (in their sequence order, each applied once) and the
 * messages of conversation memory (in theirs): the same on every replica whatever the order the two logs' items
 * interleave in, since a Query is a fold of its facts in their own time order and a message only links a
 * conversation that the Query's events do not name. Indexed by the version of each session (for the watch), by the
 * newest activity (the dashboard's list) and by when each began. Bounded by age and bytes. One event loop only.
 */
final class SessionsView {
  /** The dashboard's list: newest activity first; of the same instant, the session that began first. */
  private static final Comparator<SessionState> NEWEST_FIRST = Comparator.<SessionState>comparingLong(
      session -> -session.lastActivity).thenComparingLong(session -> session.firstSequence);
  private static final Collator NAMES = Collator.getInstance(Locale.ROOT);

  private final QuerySessionSettings settings;
  private final StoreMeters meters;
  private final RetainedItems<FactItem> facts = new RetainedItems<>();
  private final RetainedItems<LinkItem> links = new RetainedItems<>();
  /** Per Query name, the first message kept of it. */
  private final Map<String, LinkItem> linkOf = new HashMap<>();
  /** The conversations posts of no message attached Queries to (facts of the events log); per Query, the first kept. */
  private final RetainedItems<LinkItem> attachments = new RetainedItems<>();
  private final Map<String, LinkItem> attachedOf = new HashMap<>();
  private final Map<String, SessionState> sessions = new HashMap<>();
  private final Map<String, Set<SessionState>> sessionsOfQuery = new HashMap<>();
  private final TreeMap<Long, SessionState> byVersion = new TreeMap<>();
  private final TreeMap<Long, SessionState> byBeginning = new TreeMap<>();
  private final TreeSet<SessionState> newestFirst = new TreeSet<>(NEWEST_FIRST);
  private final Map<String, Integer> statusCounts = new HashMap<>();
  /** The sequence of the last fact applied, and of the last message. */
  private long factsThrough;
  private long messagesThrough;
  /** When the sessions were last purged: messages logged until then link nothing. */
  private long purgedAt = Long.MIN_VALUE;

  SessionsView(QuerySessionSettings settings, StoreMeters meters) {
    this.settings = settings;
    this.meters = meters;
  }

  long factsThrough() {
    return factsThrough;
  }

  long messagesThrough() {
    return messagesThrough;
  }

  int size() {
    return sessions.size();
  }

  long bytes() {
    return facts.bytes() + links.bytes() + attachments.bytes();
  }

  /** Applies a fact once (an older one again is ignored); returns the sessions it changed and did not remove. */
  List<SessionState> apply(SessionFact fact, long now) {
    if (fact.sequence() <= factsThrough) {
      return List.of();
    }
    factsThrough = fact.sequence();
    if (fact instanceof SessionFact.Purged purged) {
      purge(purged.loggedAt());
      return List.of();
    }
    if (fact instanceof SessionFact.QueryForgotten forgotten) {
      return forget(forgotten);
    }
    if (fact instanceof SessionFact.QueryAttached attached) {
      attach(attached, now);
      return List.of();
    }
    FactItem item = new FactItem((SessionFact.Activity) fact);
    facts.add(item);
    meters.appended();
    String id = item.activity.sessionId();
    SessionState session = sessions.get(id);
    if (session == null) {
      session = new SessionState(id);
      sessions.put(id, session);
    } else {
      unindex(session);
    }
    QueryState query = session.queries.get(item.activity.queryName());
    if (query == null) {
      query = new QueryState(item.activity.queryName());
      session.queries.put(query.name, query);
      sessionsOfQuery.computeIfAbsent(query.name, name -> new LinkedHashSet<>()).add(session);
    }
    query.add(item);
    session.version = Math.max(session.version, fact.sequence());
    session.recompute();
    index(session);
    trim(now);
    return sessions.get(id) == session ? List.of(session) : List.of();
  }

  /** Applies a message once: the first of a Query links the conversation its events may not name. */
  void applyMessage(long sequence, String conversationId, String queryName, long at, long now) {
    if (sequence <= messagesThrough) {
      return;
    }
    messagesThrough = sequence;
    if (at <= purgedAt || conversationId == null || queryName == null || linkOf.containsKey(queryName)) {
      return;
    }
    LinkItem link = new LinkItem(sequence, at, queryName, conversationId);
    links.add(link);
    linkOf.put(queryName, link);
    relinked(queryName);
    trim(now);
  }

  /** A post of no message says which conversation a Query belongs to, as its first message would. */
  private void attach(SessionFact.QueryAttached fact, long now) {
    if (attachedOf.containsKey(fact.queryName())) {
      return;
    }
    LinkItem attachment = new LinkItem(fact.sequence(), fact.loggedAt(), fact.queryName(), fact.conversationId());
    attachments.add(attachment);
    attachedOf.put(fact.queryName(), attachment);
    relinked(fact.queryName());
    trim(now);
  }

  /** Drops what has aged out or grown beyond the bytes allowed. */
  void trim(long now) {
    facts.trim(now, settings.maxBytes(), settings.maxAgeMillis(), this::dropped);
    links.trim(now, settings.maxBytes(), settings.maxAgeMillis(), link -> {
      if (linkOf.remove(link.queryName, link)) {
        relinked(link.queryName);
      }
    });
    attachments.trim(now, settings.maxBytes(), settings.maxAgeMillis(), attachment -> {
      if (attachedOf.remove(attachment.queryName, attachment)) {
        relinked(attachment.queryName);
      }
    });
  }

  /**
   * The conversation the first kept message of a Query, or post of none, links it to, or null: of a message and a
   * post, the one written first (by the writers' clocks; the post, within the same millisecond), whichever log a
   * replica read first.
   */
  String linked(String queryName) {
    LinkItem message = linkOf.get(queryName);
    LinkItem attachment = attachedOf.get(queryName);
    LinkItem first = message == null || attachment != null && attachment.appendedAt() <= message.appendedAt()
        ? attachment : message;
    return first == null ? null : first.conversationId;
  }

  byte[] session(String id) {
    SessionState session = sessions.get(id);
    return session == null ? null : session.rendered(this::linked);
  }

  /** {@code {"sessions":{...}}}, in the order the sessions began: its pieces, each session's rendering as held. */
  List<byte[]> all() {
    List<byte[]> pieces = new ArrayList<>(2 + 2 * sessions.size());
    pieces.add("{\"sessions\":{".getBytes(StandardCharsets.US_ASCII));
    boolean first = true;
    for (SessionState session : byBeginning.values()) {
      pieces.add(quoted(first ? "" : ",", session.id));
      first = false;
      pieces.add(session.rendered(this::linked));
    }
    pieces.add("}}".getBytes(StandardCharsets.US_ASCII));
    return pieces;
  }

  SessionPage page(SessionQuery query) {
    if (query.status() == null && query.activeFrom() == null && query.activeTo() == null && query.search() == null
        && "date".equals(query.sort()) && query.descending()) {
      // The dashboard's list: read from the index, as fast however many sessions there are.
      List<byte[]> items = new ArrayList<>(Math.min(query.limit(), 256));
      newestFirst.stream().skip(query.offset()).limit(query.limit())
          .forEach(session -> items.add(session.rendered(this::linked)));
      return page(items, sessions.size(), query, new StatusCounts(count("active"), count("idle"), count("error")));
    }
    Stream<SessionState> selected = byBeginning.values().stream().filter(selection(query));
    Comparator<SessionState> order = order(query.sort());
    if (order != null) {
      selected = selected.sorted(query.descending() ? order.reversed() : order);
    }
    List<SessionState> all = selected.toList();
    int[] counts = new int[3];
    all.forEach(session -> counts[session.status.equals("active") ? 0 : session.status.equals("idle") ? 1 : 2]++);
    List<byte[]> items = all.stream().skip(query.offset()).limit(query.limit())
        .map(session -> session.rendered(this::linked)).toList();
    return page(items, all.size(), query, new StatusCounts(counts[0], counts[1], counts[2]));
  }

  /** The sessions (one, or all) whose version is after {@code cursor}, in version order, as the watch sends them. */
  ItemPage changes(String sessionId, long cursor, int limit) {
    List<byte[]> items = new ArrayList<>();
    long last = cursor;
    if (sessionId != null) {
      SessionState session = sessions.get(sessionId);
      if (session != null && session.version > cursor) {
        items.add(change(session));
        last = session.version;
      }
      return new ItemPage(items, items.size(), false, last);
    }
    for (SessionState session : byVersion.tailMap(cursor, false).values()) {
      if (items.size() == limit) {
        return new ItemPage(items, byVersion.size(), true, last);
      }
      items.add(change(session));
      last = session.version;
    }
    return new ItemPage(items, byVersion.size(), false, last);
  }

  /** The watch's item for a session as it stands. */
  byte[] change(SessionState session) {
    return SessionJson.change(session, session.rendered(this::linked));
  }

  private SessionPage page(List<byte[]> items, int total, SessionQuery query, StatusCounts counts) {
    int next = query.offset() + query.limit();
    return new SessionPage(items, total, next < total, next, counts);
  }

  private int count(String status) {
    return statusCounts.getOrDefault(status, 0);
  }

  private Predicate<SessionState> selection(SessionQuery query) {
    String search = query.search() == null ? null : query.search().toLowerCase(Locale.ROOT);
    return session -> (query.status() == null || query.status().equals(session.status))
        && (query.activeFrom() == null || session.lastActivity >= query.activeFrom())
        && (query.activeTo() == null || session.lastActivity <= query.activeTo())
        && (search == null || contains(session.id, search) || contains(session.name(), search)
            || session.queries.values().stream().anyMatch(q -> contains(q.agent, search) || contains(q.team, search)
                || contains(q.tool, search)));
  }

  private Comparator<SessionState> order(String sort) {
    if (sort == null) {
      return null;
    }
    return switch (sort) {
      case "date" -> Comparator.comparingLong(session -> session.lastActivity);
      case "name" -> (a, b) -> NAMES.compare(a.name(), b.name());
      default -> Comparator.comparingInt(session -> session.conversations(this::linked));
    };
  }

  private static boolean contains(String text, String lowerCased) {
    return text != null && text.toLowerCase(Locale.ROOT).contains(lowerCased);
  }

  /** A fact left (its age or the bytes): its Query is folded without it, and goes when it has no fact left. */
  private void dropped(FactItem fact) {
    meters.dropped();
    SessionState session = sessions.get(fact.activity.sessionId());
    QueryState query = session == null ? null : session.queries.get(fact.activity.queryName());
    if (query == null) {
      return;
    }
    unindex(session);
    if (!query.remove(fact)) {
      session.queries.remove(query.name);
      Set<SessionState> holding = sessionsOfQuery.get(query.name);
      holding.remove(session);
      if (holding.isEmpty()) {
        sessionsOfQuery.remove(query.name);
      }
    }
    if (session.queries.isEmpty()) {
      sessions.remove(session.id);
      return;
    }
    session.recompute();
    index(session);
  }

  /** The ids of the sessions that list the Query. */
  List<String> sessionsOf(String queryName) {
    return sessionsOfQuery.getOrDefault(queryName, Set.of()).stream().map(session -> session.id).toList();
  }

  /**
   * The Query leaves the session, with its activities there; a session left with no Query goes. Once no session lists
   * it, what a post of no message attached it to goes too. What its messages link stays: they are conversation
   * memory's, and say it again should it come back.
   */
  private List<SessionState> forget(SessionFact.QueryForgotten fact) {
    SessionState session = sessions.get(fact.sessionId());
    QueryState query = session == null ? null : session.queries.remove(fact.queryName());
    if (query == null) {
      return List.of();
    }
    Set<SessionState> holding = sessionsOfQuery.get(query.name);
    holding.remove(session);
    if (holding.isEmpty()) {
      sessionsOfQuery.remove(query.name);
      LinkItem attachment = attachedOf.remove(query.name);
      if (attachment != null) {
        attachments.drop(attachment);
      }
    }
    unindex(session);
    query.activities().forEach(activity -> {
      facts.drop(activity);
      meters.dropped();
    });
    if (session.queries.isEmpty()) {
      sessions.remove(session.id);
      return List.of();
    }
    session.version = Math.max(session.version, fact.sequence());
    session.recompute();
    index(session);
    return List.of(session);
  }

  /** {@code DELETE /sessions}: every session goes, and what messages logged until now linked. */
  private void purge(long at) {
    facts.all().kept().forEach(fact -> {
      facts.drop(fact);
      meters.dropped();
    });
    links.all().kept().stream().filter(link -> link.appendedAt() <= at).forEach(link -> {
      links.drop(link);
      linkOf.remove(link.queryName, link);
    });
    attachments.all().kept().forEach(attachments::drop);
    attachedOf.clear();
    sessions.clear();
    sessionsOfQuery.clear();
    byVersion.clear();
    byBeginning.clear();
    newestFirst.clear();
    statusCounts.clear();
    purgedAt = Math.max(purgedAt, at);
  }

  private void relinked(String queryName) {
    sessionsOfQuery.getOrDefault(queryName, Set.of()).forEach(SessionState::relinked);
  }

  private void index(SessionState session) {
    byVersion.put(session.version, session);
    byBeginning.put(session.firstSequence, session);
    newestFirst.add(session);
    statusCounts.merge(session.status, 1, Integer::sum);
  }

  private void unindex(SessionState session) {
    byVersion.remove(session.version);
    byBeginning.remove(session.firstSequence);
    newestFirst.remove(session);
    statusCounts.merge(session.status, -1, Integer::sum);
  }

  /** {@code before"text":}, the text quoted as a JSON name. */
  private static byte[] quoted(String before, String text) {
    return (before + "\"" + new String(JsonStringEncoder.getInstance().quoteAsString(text)) + "\":")
        .getBytes(StandardCharsets.UTF_8);
  }
}
