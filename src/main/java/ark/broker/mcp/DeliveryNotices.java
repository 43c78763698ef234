package ark.broker.mcp;

import ark.broker.question.Delivery;
import ark.broker.question.Question;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The "Delivered to ..." progress notices of one waiting call: each delivery of its question told once, whenever
 * the call learns of it (from a change, or from the question as the call first reads it). A channel updating its
 * record of a delivery (the same channel and ref) is not a new delivery.
 */
final class DeliveryNotices {
  private final Set<List<String>> told = new HashSet<>();

  /** The notices for the deliveries of {@code question} not told yet, in the order they were made. */
  List<String> untold(Question question) {
    List<String> notices = new ArrayList<>();
    for (Delivery delivery : question.deliveries()) {
      if (told.add(List.of(delivery.channel(), delivery.ref()))) {
        notices.add("Delivered to " + (delivery.label() != null ? delivery.label() : delivery.channel()));
      }
    }
    return notices;
  }
}
