package ark.broker.querysessions;

import ark.broker.bus.QueryActivity;
import ark.broker.bus.SessionFact;
import ark.broker.log.RetainedItems;

import java.util.Comparator;

/** An activity of a Query as the projection keeps it, weighed as the events store weighs it. */
final class FactItem extends RetainedItems.Item {
  /**
   * The order a Query's activities are folded in: by their own time, then by the phase they report (a completion
   * last), then by what they say. Two identical activities sit side by side, so a replayed one changes nothing.
   */
  static final Comparator<FactItem> FOLD_ORDER = Comparator.<FactItem>comparingLong(fact -> fact.activity.at())
      .thenComparing(fact -> fact.phase)
      .thenComparing(fact -> fact.activity.reason(), Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(fact -> fact.activity.error(), Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(fact -> fact.activity.namespace(), Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(fact -> fact.activity.conversationId(), Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(fact -> fact.activity.agent(), Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(fact -> fact.activity.team(), Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(fact -> fact.activity.tool(), Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparing(fact -> fact.activity.targetType(), Comparator.nullsFirst(Comparator.naturalOrder()))
      .thenComparingLong(RetainedItems.Item::position);

  final QueryActivity activity;
  final Phase phase;

  FactItem(SessionFact.Activity fact) {
    super(fact.sequence(), fact.loggedAt(), Long.MAX_VALUE, fact.activity().weight());
    this.activity = fact.activity();
    this.phase = Phase.of(activity.reason(), activity.error());
  }
}
