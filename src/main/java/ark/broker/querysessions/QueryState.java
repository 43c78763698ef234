package ark.broker.querysessions;

import ark.broker.bus.QueryActivity;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One Query of a session: its activities in fold order, and what folding them comes to (upstream's
 * {@code QueryEntry}). The fold applies upstream's rules one activity at a time, in the activities' own time order,
 * so the outcome depends on which activities there are, never on the order they arrived in.
 */
final class QueryState {
  /** The {@link #completedAt} of a Query that has not completed. */
  static final long NOT_COMPLETED = Long.MIN_VALUE;

  final String name;
  private final List<FactItem> facts = new ArrayList<>();
  String namespace;
  /** The conversation its activities name, if any; a linked message's otherwise (see {@link #conversationId}). */
  String conversationFromEvents;
  String agent;
  String team;
  String tool;
  String targetType;
  Phase phase;
  String error;
  long createdAt;
  /** When it reached its phase, or {@link #NOT_COMPLETED} while it runs. */
  long completedAt;
  long lastActivity;
  /** The lowest sequence of its activities: where it stands among its session's Queries. */
  long firstSequence;

  QueryState(String name) {
    this.name = name;
  }

  void add(FactItem fact) {
    int at = Collections.binarySearch(facts, fact, FactItem.FOLD_ORDER);
    facts.add(at < 0 ? -at - 1 : at, fact);
    fold();
  }

  /** Its activities, in fold order. */
  List<FactItem> activities() {
    return Collections.unmodifiableList(facts);
  }

  /** Takes out an activity that was dropped; false once none is left. */
  boolean remove(FactItem fact) {
    facts.remove(fact);
    if (facts.isEmpty()) {
      return false;
    }
    fold();
    return true;
  }

  /** The conversation it belongs to: its activities', or else the one {@code linked} by a message, or null. */
  String conversationId(String linked) {
    return conversationFromEvents != null ? conversationFromEvents : linked;
  }

  /** Upstream's {@code applyEvent} for a new Query, then its {@code updateExistingQuery} for each later activity. */
  private void fold() {
    firstSequence = Long.MAX_VALUE;
    boolean first = true;
    for (FactItem fact : facts) {
      firstSequence = Math.min(firstSequence, fact.position());
      QueryActivity activity = fact.activity;
      long at = activity.at();
      if (first) {
        first = false;
        namespace = activity.namespace();
        conversationFromEvents = activity.conversationId();
        agent = activity.agent();
        team = activity.team();
        tool = activity.tool();
        targetType = activity.targetType() == null ? "agent" : activity.targetType();
        phase = fact.phase;
        error = activity.error();
        createdAt = at;
        completedAt = phase == Phase.RUNNING ? NOT_COMPLETED : at;
        lastActivity = at;
        continue;
      }
      lastActivity = at;
      conversationFromEvents = conversationFromEvents != null ? conversationFromEvents : activity.conversationId();
      agent = agent != null ? agent : activity.agent();
      team = team != null ? team : activity.team();
      tool = tool != null ? tool : activity.tool();
      if (activity.targetType() != null && targetType.equals("agent")) {
        targetType = activity.targetType();
      }
      if (fact.phase == Phase.ERROR) {
        phase = Phase.ERROR;
        error = activity.error();
        completedAt = at;
      } else if (fact.phase == Phase.CANCELED && phase != Phase.ERROR) {
        phase = Phase.CANCELED;
        completedAt = at;
      } else if (fact.phase == Phase.DONE && phase != Phase.CANCELED) {
        // A later completion clears an earlier error: a Query paused for a tool's approval shows as an error until then.
        phase = Phase.DONE;
        error = null;
        completedAt = at;
      }
    }
  }
}
