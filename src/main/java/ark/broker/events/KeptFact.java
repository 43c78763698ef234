package ark.broker.events;

import ark.broker.bus.SessionFact;
import ark.broker.log.RetainedItems;

/** An activity kept for the sessions projection, weighed by what it holds. */
final class KeptFact extends RetainedItems.Item {
  final SessionFact.Activity fact;

  KeptFact(SessionFact.Activity fact) {
    super(fact.sequence(), fact.loggedAt(), Long.MAX_VALUE, fact.activity().weight());
    this.fact = fact;
  }
}
