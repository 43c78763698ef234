package ark.broker.store;

import ark.broker.question.EventType;
import ark.broker.question.InvalidQuestionException;
import ark.broker.question.Question;
import ark.broker.question.QuestionEvent;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionNotFoundException;
import ark.broker.question.QuestionOrder;
import ark.broker.question.QuestionPage;
import ark.broker.question.QuestionStatus;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Every question as the log says it is, built by applying the log's events in order. Applying is
 * deterministic, so every replica that applies the same log agrees on every question, including on
 * which of two racing writes won. Not thread-safe: one owner applies and reads.
 */
public final class QuestionView {
  private final Map<String, Question> byId = new HashMap<>();
  private final NavigableMap<ListOrder, Question> inListOrder = new TreeMap<>();
  // Indexes for the lists people and agents ask for most (pending ones, one sender's, one recipient's),
  // so such a list costs what it returns rather than a walk over every question ever asked.
  private final NavigableSet<ListOrder> pending = new TreeSet<>();
  private final Map<String, NavigableSet<ListOrder>> bySender = new HashMap<>();
  private final Map<String, NavigableSet<ListOrder>> byRecipient = new HashMap<>();
  /** What budgets count: each sender's pending questions (a sender with none has no entry). */
  private final Map<String, Integer> pendingBySender = new HashMap<>();
  /** And each service's pending questions, asked for the agents it acts for. */
  private final Map<String, Integer> pendingByActingService = new HashMap<>();
  private final TreeSet<Deadline> deadlines = new TreeSet<>();
  /** Settled questions by their last change: the first of them are the first whose retention ends. */
  private final TreeSet<Deadline> settled = new TreeSet<>();
  /** Questions that left the API and that the audit trail still keeps, as they were when removed. */
  private final Map<String, Question> removed = new HashMap<>();
  /** The same, by their last change before they were removed: the first are the first the audit trail forgets. */
  private final TreeSet<Deadline> removedByAge = new TreeSet<>();
  private final EnumMap<QuestionStatus, Long> countByStatus = new EnumMap<>(QuestionStatus.class);
  private final Set<String> misstated = new LinkedHashSet<>();
  private long position;

  public QuestionView() {
    for (QuestionStatus status : QuestionStatus.values()) {
      countByStatus.put(status, 0L);
    }
  }

  /** What applying one event did. */
  public enum Effect {
    /** The event changed the view. */
    APPLIED,
    /** A create for a question that already exists: the request was asked before. */
    ALREADY_EXISTS,
    /** The event was based on a state that another write changed first; it was ignored. */
    SUPERSEDED,
    /** A restatement of the state the view already holds: nothing changes. */
    CONFIRMED,
    /** The record ended what the audit trail kept of a question that had left the API: nothing visible changes. */
    DROPPED
  }

  /** @param current the question after the event (or as it stays, when the event was not applied) */
  public record Result(Effect effect, Question current) {
  }

  public Result apply(QuestionEvent event, long eventPosition) {
    position = Math.max(position, eventPosition);
    Result result = decide(event, eventPosition);
    // A compacted log keeps only the newest record of each question: one that was not applied would
    // leave a replica that replays later with the loser's state, until the question is restated.
    if (result.effect() == Effect.ALREADY_EXISTS || result.effect() == Effect.SUPERSEDED) {
      misstated.add(result.current().id());
    } else {
      misstated.remove(result.current().id());
    }
    return result;
  }

  private Result decide(QuestionEvent event, long eventPosition) {
    String id = event.question().id();
    if (event.type() == EventType.FORGOTTEN) {
      return forget(id, event, eventPosition);
    }
    Question existing = byId.get(id);
    Question removedBefore = removed.get(id);
    if (event.type() == EventType.REMOVED) {
      return remove(existing, removedBefore, event, eventPosition);
    }
    if (removedBefore != null) {
      // Written by a replica that had not seen the removal yet: it lost, like any write based on an older state.
      return new Result(Effect.SUPERSEDED, removedBefore);
    }
    if (existing != null) {
      if (event.type() == EventType.CREATED && !event.restated()) {
        return new Result(Effect.ALREADY_EXISTS, existing);
      }
      if (event.expectedVersion() == null || event.expectedVersion() != existing.resourceVersion()) {
        return new Result(Effect.SUPERSEDED, existing);
      }
      if (event.restated()) {
        return new Result(Effect.CONFIRMED, existing);
      }
    }
    // A record about a question this view does not know restates it: the log was compacted or
    // snapshotted and no longer holds the records before it. A restatement keeps the version it
    // restates, so every replica, whatever it replayed, expects the same version of the question.
    long version = event.restated() && event.expectedVersion() != null ? event.expectedVersion() : eventPosition;
    Question applied = event.question().withResourceVersion(version);
    replace(existing, applied);
    return new Result(Effect.APPLIED, applied);
  }

  /**
   * A settled question leaves the API, kept for the audit trail as the record has it: if it is still as the remover
   * saw it, or whatever it is when the record restates its removal (a snapshot, a compacted log).
   */
  private Result remove(Question existing, Question removedBefore, QuestionEvent event, long eventPosition) {
    if (removedBefore != null) {
      return new Result(event.restated() ? Effect.CONFIRMED : Effect.SUPERSEDED, removedBefore);
    }
    if (existing != null && !event.restated() && !Objects.equals(event.expectedVersion(), existing.resourceVersion())) {
      return new Result(Effect.SUPERSEDED, existing);
    }
    if (existing != null) {
      leave(existing);
    }
    long version = event.restated() && event.expectedVersion() != null ? event.expectedVersion() : eventPosition;
    Question kept = event.question().withResourceVersion(version);
    removed.put(kept.id(), kept);
    removedByAge.add(lastChange(kept));
    return new Result(Effect.APPLIED, kept);
  }

  /** Nothing of the question is kept any more; one still in the API leaves it too. */
  private Result forget(String id, QuestionEvent event, long eventPosition) {
    Question existing = byId.get(id);
    if (existing != null) {
      leave(existing);
      return new Result(Effect.APPLIED, existing.withResourceVersion(eventPosition));
    }
    Question kept = removed.remove(id);
    if (kept != null) {
      removedByAge.remove(lastChange(kept));
    }
    return new Result(Effect.DROPPED, kept != null ? kept : event.question());
  }

  /** The question leaves every index of questions in the API. */
  private void leave(Question question) {
    ListOrder order = new ListOrder(question.createdAt(), question.id());
    byId.remove(question.id());
    inListOrder.remove(order);
    pending.remove(order);
    removeFrom(bySender, question.asked().sender(), order);
    for (String recipient : question.recipients()) {
      removeFrom(byRecipient, recipient, order);
    }
    if (question.isPending()) {
      countPending(pendingBySender, question.asked().sender(), -1);
      countPending(pendingByActingService, question.askedOnBehalfBy(), -1);
    }
    if (question.nextDeadline() != null) {
      deadlines.remove(new Deadline(question.nextDeadline(), question.id()));
    }
    settled.remove(lastChange(question));
    countByStatus.merge(question.outcome().status(), -1L, Long::sum);
  }

  private static void removeFrom(Map<String, NavigableSet<ListOrder>> index, String key, ListOrder order) {
    if (key == null) {
      return;
    }
    NavigableSet<ListOrder> orders = index.get(key);
    if (orders != null && orders.remove(order) && orders.isEmpty()) {
      index.remove(key);
    }
  }

  private static Deadline lastChange(Question question) {
    return new Deadline(question.updatedAt() != null ? question.updatedAt() : question.createdAt(), question.id());
  }

  /**
   * Questions whose newest record in the log is not the state this view holds (it lost a race), so
   * that they must be restated; in the order they became so.
   */
  public Set<String> misstated() {
    return Collections.unmodifiableSet(misstated);
  }

  public Question get(String id) {
    return byId.get(id);
  }

  /** The question as the audit trail keeps it, if it left the API; else null. */
  public Question removed(String id) {
    return removed.get(id);
  }

  /** Every question that left the API and that the audit trail still keeps. */
  public Collection<Question> allRemoved() {
    return removed.values();
  }

  /** Settled questions whose last change was before {@code before}, oldest first: those whose retention ended. */
  public List<Question> settledBefore(Instant before, int max) {
    return before(settled, before, max, byId);
  }

  /** Removed questions whose last change was before {@code before}, oldest first: those the audit trail forgets. */
  public List<Question> removedBefore(Instant before, int max) {
    return before(removedByAge, before, max, removed);
  }

  private static List<Question> before(SortedSet<Deadline> byAge, Instant before, int max, Map<String, Question> questions) {
    List<Question> due = new ArrayList<>();
    for (Deadline deadline : byAge) {
      if (!deadline.at.isBefore(before) || due.size() == max) {
        break;
      }
      due.add(questions.get(deadline.id));
    }
    return due;
  }

  /**
   * A page of the removed questions the audit trail keeps, in the order they go; {@code continueToken} (null for the
   * first page) is where the previous page ended: the last change and id of its last question.
   *
   * @throws InvalidQuestionException for a continue token this view did not hand out
   */
  public QuestionPage removedKept(int limit, String continueToken) {
    SortedSet<Deadline> after = removedByAge;
    if (continueToken != null) {
      // A list's token names a time and an id, as a removed question's place in this order is.
      ListOrder previous = ListOrder.decode(continueToken);
      after = removedByAge.tailSet(new Deadline(previous.createdAt, previous.id), false);
    }
    List<Question> items = new ArrayList<>(Math.min(limit, after.size()));
    Deadline last = null;
    for (Deadline deadline : after) {
      if (items.size() == limit) {
        break;
      }
      items.add(removed.get(deadline.id));
      last = deadline;
    }
    boolean more = last != null && !removedByAge.tailSet(last, false).isEmpty();
    return new QuestionPage(Long.toString(position), items, more ? new ListOrder(last.at, last.id).encode() : null);
  }

  public Question require(String id) {
    Question question = byId.get(id);
    if (question == null) {
      throw new QuestionNotFoundException(id);
    }
    return question;
  }

  /** Position of the newest event applied: the resourceVersion of the view as a whole. */
  public long position() {
    return position;
  }

  public int size() {
    return byId.size();
  }

  public long count(QuestionStatus status) {
    return countByStatus.get(status);
  }

  /** How many questions {@code sender} sent that are still pending. */
  public int pendingFrom(String sender) {
    return pendingBySender.getOrDefault(sender, 0);
  }

  /** How many questions {@code service} asked for the agents it acts for that are still pending. */
  public int pendingAskedOnBehalfBy(String service) {
    return pendingByActingService.getOrDefault(service, 0);
  }

  /**
   * Every question, oldest first. A snapshot written in this order replays as appends to the end of
   * every ordered index, which is several times faster than inserting in random order.
   */
  public Collection<Question> all() {
    return inListOrder.values();
  }

  /** Questions in the order they were created (oldest first), {@code limit} at a time. */
  public QuestionPage list(QuestionFilter filter, int limit, String continueToken) {
    return list(filter, QuestionOrder.OLDEST_FIRST, limit, continueToken);
  }

  /** Questions in creation order from the end {@code order} names, {@code limit} at a time. */
  public QuestionPage list(QuestionFilter filter, QuestionOrder order, int limit, String continueToken) {
    NavigableSet<ListOrder> candidates =
        order == QuestionOrder.NEWEST_FIRST ? candidates(filter).descendingSet() : candidates(filter);
    NavigableSet<ListOrder> rest =
        continueToken == null ? candidates : candidates.tailSet(ListOrder.decode(continueToken), false);
    List<Question> items = new ArrayList<>(Math.min(limit, 256));
    ListOrder last = null;
    String next = null;
    for (ListOrder key : rest) {
      Question question = inListOrder.get(key);
      if (!filter.matches(question)) {
        continue;
      }
      if (items.size() == limit) {
        next = last.encode();
        break;
      }
      items.add(question);
      last = key;
    }
    return new QuestionPage(Long.toString(position), items, next);
  }

  /** The smallest index that holds every question the filter can match. */
  private NavigableSet<ListOrder> candidates(QuestionFilter filter) {
    NavigableSet<ListOrder> smallest = inListOrder.navigableKeySet();
    if (filter.status() == QuestionStatus.PENDING) {
      smallest = pending;
    }
    if (filter.sender() != null) {
      smallest = smaller(smallest, bySender.getOrDefault(filter.sender(), Collections.emptyNavigableSet()));
    }
    if (filter.recipient() != null) {
      smallest = smaller(smallest, byRecipient.getOrDefault(filter.recipient(), Collections.emptyNavigableSet()));
    }
    return smallest;
  }

  private static NavigableSet<ListOrder> smaller(NavigableSet<ListOrder> one, NavigableSet<ListOrder> other) {
    return other.size() < one.size() ? other : one;
  }

  /** Pending questions with a follow-up due (a reminder, an escalation, the timeout), soonest first. */
  public List<Question> dueForFollowUp(Instant now, int max) {
    List<Question> due = new ArrayList<>();
    for (Deadline deadline : deadlines) {
      if (deadline.at.isAfter(now) || due.size() == max) {
        break;
      }
      due.add(byId.get(deadline.id));
    }
    return due;
  }

  private void replace(Question before, Question after) {
    ListOrder order = new ListOrder(after.createdAt(), after.id());
    if (before != null) {
      countByStatus.merge(before.outcome().status(), -1L, Long::sum);
      if (before.nextDeadline() != null) {
        deadlines.remove(new Deadline(before.nextDeadline(), before.id()));
      }
      settled.remove(lastChange(before));
    } else if (after.asked().sender() != null) {
      // Who asks never changes, so a question joins this index once.
      bySender.computeIfAbsent(after.asked().sender(), key -> new TreeSet<>()).add(order);
    }
    // Who is asked changes once at most: an escalation adds recipients.
    if (before == null || before.followUps().escalatedAt() == null && after.followUps().escalatedAt() != null) {
      for (String recipient : after.recipients()) {
        byRecipient.computeIfAbsent(recipient, key -> new TreeSet<>()).add(order);
      }
    }
    if (after.isPending()) {
      pending.add(order);
    } else {
      pending.remove(order);
    }
    int pendingChange = (after.isPending() ? 1 : 0) - (before != null && before.isPending() ? 1 : 0);
    if (pendingChange != 0) {
      countPending(pendingBySender, after.asked().sender(), pendingChange);
      countPending(pendingByActingService, after.askedOnBehalfBy(), pendingChange);
    }
    byId.put(after.id(), after);
    inListOrder.put(order, after);
    countByStatus.merge(after.outcome().status(), 1L, Long::sum);
    if (after.nextDeadline() != null) {
      deadlines.add(new Deadline(after.nextDeadline(), after.id()));
    }
    if (!after.isPending()) {
      settled.add(lastChange(after));
    }
  }

  /** Adds {@code change} to the pending count of {@code key} (if any), dropping a count that reaches zero. */
  private static void countPending(Map<String, Integer> counts, String key, int change) {
    if (key != null) {
      counts.merge(key, change, (count, delta) -> count + delta == 0 ? null : count + delta);
    }
  }

  private record Deadline(Instant at, String id) implements Comparable<Deadline> {
    @Override
    public int compareTo(Deadline other) {
      int byTime = at.compareTo(other.at);
      return byTime != 0 ? byTime : id.compareTo(other.id);
    }
  }

  /**
   * Creation time, then id: stable on every replica, so a continue token means the same everywhere.
   * The time and the id's first characters are kept as numbers: these keys are compared millions of
   * times while a log replays, and following pointers to an Instant and a String each time made that
   * comparison the largest cost of start-up.
   */
  private record ListOrder(long epochSecond, int nano, long idPrefix, Instant createdAt, String id)
      implements Comparable<ListOrder> {

    ListOrder(Instant createdAt, String id) {
      this(createdAt.getEpochSecond(), createdAt.getNano(), prefix(id), createdAt, id);
    }

    @Override
    public int compareTo(ListOrder other) {
      if (epochSecond != other.epochSecond) {
        return Long.compare(epochSecond, other.epochSecond);
      }
      if (nano != other.nano) {
        return Integer.compare(nano, other.nano);
      }
      if (idPrefix != other.idPrefix) {
        return Long.compareUnsigned(idPrefix, other.idPrefix);
      }
      return id.compareTo(other.id);
    }

    /** The id's first four characters, ordered as the id itself orders (ids are ASCII). */
    private static long prefix(String id) {
      long packed = 0;
      for (int i = 0; i < 4; i++) {
        packed = (packed << 16) | (i < id.length() ? id.charAt(i) : 0);
      }
      return packed;
    }

    String encode() {
      String plain = createdAt + "\n" + id;
      return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    static ListOrder decode(String token) {
      try {
        String plain = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        int newline = plain.indexOf('\n');
        return new ListOrder(Instant.parse(plain.substring(0, newline)), plain.substring(newline + 1));
      } catch (RuntimeException e) {
        throw new InvalidQuestionException("continue must be a token from a previous page of this list");
      }
    }
  }
}
