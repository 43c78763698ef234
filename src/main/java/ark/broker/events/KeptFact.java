package ark.broker.events;

import ark.broker.bus.SessionFact;
import ark.broker.log.RetainedItems;

/** A fact kept for the sessions projection (an activity, a Query's conversation, a Query forgotten), weighed. */
final class KeptFact extends RetainedItems.Item {
  /** What a fact without an activity weighs: its record's fields. */
  private static final int BARE_WEIGHT = 64;

  final SessionFact fact;

  KeptFact(SessionFact.Activity fact) {
    super(fact.sequence(), fact.loggedAt(), Long.MAX_VALUE, fact.activity().weight());
    this.fact = fact;
  }

  KeptFact(SessionFact.QueryForgotten fact) {
    super(fact.sequence(), fact.loggedAt(), Long.MAX_VALUE,
        BARE_WEIGHT + 2 * (fact.sessionId().length() + fact.queryName().length()));
    this.fact = fact;
  }

  KeptFact(SessionFact.QueryAttached fact) {
    super(fact.sequence(), fact.loggedAt(), Long.MAX_VALUE,
        BARE_WEIGHT + 2 * (fact.queryName().length() + fact.conversationId().length()));
    this.fact = fact;
  }
}
