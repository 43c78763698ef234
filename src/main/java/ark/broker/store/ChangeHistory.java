package ark.broker.store;

import ark.broker.bus.Messages.QuestionChange;

import java.util.ArrayList;
import java.util.List;

/**
 * The most recent changes, in log order, kept so a watcher can resume from the last resourceVersion
 * it saw. Older changes fall out; asking for them is answered "too old", and the client lists again.
 */
final class ChangeHistory {
  private final QuestionChange[] ring;
  private int head;
  private int size;
  /** Every applied change after this position is in the ring. */
  private long completeAfter;

  ChangeHistory(int capacity) {
    this.ring = new QuestionChange[capacity];
  }

  void add(QuestionChange change) {
    if (size == ring.length) {
      completeAfter = ring[head].position();
      ring[head] = change;
      head = (head + 1) % ring.length;
    } else {
      ring[(head + size) % ring.length] = change;
      size++;
    }
  }

  /** A question restated from a snapshot at {@code position}: changes up to there are compacted away. */
  void compactedUpTo(long position) {
    completeAfter = Math.max(completeAfter, position);
  }

  /** The first {@code limit} changes after {@code position}, or null when some of them are no longer retained. */
  List<QuestionChange> since(long position, int limit) {
    if (position < completeAfter) {
      return null;
    }
    int low = 0;
    int high = size;
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (at(middle).position() <= position) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    int end = (int) Math.min(size, (long) low + limit);
    List<QuestionChange> changes = new ArrayList<>(end - low);
    for (int i = low; i < end; i++) {
      changes.add(at(i));
    }
    return changes;
  }

  long completeAfter() {
    return completeAfter;
  }

  private QuestionChange at(int index) {
    return ring[(head + index) % ring.length];
  }
}
