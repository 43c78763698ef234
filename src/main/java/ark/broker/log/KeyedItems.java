package ark.broker.log;

import java.util.HashMap;
import java.util.Map;

/**
 * Kept items of a store that only appends, indexed by a key of theirs (a Query, a session, a trace): per key, its
 * items in log order and how many of them are kept, so a read of one key costs what it returns however many items
 * are kept in all. The owner tells it of every item it drops. One event loop only.
 *
 * @param <T> the store's items
 */
public final class KeyedItems<T extends RetainedItems.Item> {
  private final Map<String, Keyed<T>> byKey = new HashMap<>();

  private static final class Keyed<T extends RetainedItems.Item> {
    final Sequence<T> items = new Sequence<>();
    long kept;
  }

  /** Indexes {@code item} under {@code key}; a null key indexes nothing. */
  public void add(String key, T item) {
    if (key != null) {
      Keyed<T> keyed = byKey.computeIfAbsent(key, k -> new Keyed<>());
      keyed.items.add(item);
      keyed.kept++;
    }
  }

  /** An item indexed under {@code key} was dropped; the key goes once none of its items is left. */
  public void dropped(String key) {
    Keyed<T> keyed = key == null ? null : byKey.get(key);
    if (keyed != null) {
      keyed.items.droppedOne();
      if (--keyed.kept == 0) {
        byKey.remove(key);
      }
    }
  }

  /** The items of {@code key} in log order (some may be dropped: skip them), or an empty sequence. */
  public Sequence<T> of(String key) {
    Keyed<T> keyed = key == null ? null : byKey.get(key);
    return keyed == null ? new Sequence<>() : keyed.items;
  }

  /** How many items of {@code key} are kept. */
  public long count(String key) {
    Keyed<T> keyed = key == null ? null : byKey.get(key);
    return keyed == null ? 0 : keyed.kept;
  }

  /** The first kept item of {@code key}, or null. */
  public T first(String key) {
    Sequence<T> items = of(key);
    for (int i = 0; i < items.size(); i++) {
      if (!items.get(i).dropped()) {
        return items.get(i);
      }
    }
    return null;
  }

  public int keys() {
    return byKey.size();
  }
}
