package ark.broker.querysessions;

import java.util.Locale;

/**
 * A Query's phase as upstream's sessions projection names it, from the reason of one event; declared in the order
 * that settles events of the same instant (a completion last).
 */
enum Phase {
  RUNNING, ERROR, CANCELED, DONE;

  final String wire = name().toLowerCase(Locale.ROOT);

  /** Upstream's {@code resolveQueryPhase}. */
  static Phase of(String reason, String error) {
    String named = reason == null ? "" : reason;
    if (named.equals("QueryExecutionComplete")) {
      return error != null ? ERROR : DONE;
    }
    if (named.contains("Canceled")) {
      return CANCELED;
    }
    return named.contains("Error") ? ERROR : RUNNING;
  }
}
