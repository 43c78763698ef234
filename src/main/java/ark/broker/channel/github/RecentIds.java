package ark.broker.channel.github;

import java.util.LinkedHashSet;
import java.util.Set;

/** The last {@code capacity} ids seen, oldest forgotten first. Not thread-safe: one event loop owns it. */
final class RecentIds {
  private final int capacity;
  private final Set<String> ids = new LinkedHashSet<>();

  RecentIds(int capacity) {
    this.capacity = Math.max(1, capacity);
  }

  /** Adds the id; false if it was already there. */
  boolean add(String id) {
    if (!ids.add(id)) {
      return false;
    }
    if (ids.size() > capacity) {
      ids.remove(ids.iterator().next());
    }
    return true;
  }

  void forget(String id) {
    ids.remove(id);
  }
}
