package ark.broker.log;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * What a store that only appends should keep, written as plainly as possible: a list of the live items in log order,
 * and the rules of {@link RetainedItems} restated over it (the oldest leave first while the bytes are passed or they
 * are too old, an item leaves at its own expiry, a deletion takes what it names). The property tests hold every
 * store's view to it.
 */
public final class RetentionModel {
  /**
   * One item the store keeps: the write that made it ({@code label}), the key deletions name it by, a second key of
   * its own (a conversation, a Query of a session), what it weighs, when it was appended and when it expires.
   */
  public record Item(long position, String label, String key, String group, long bytes, long appendedAt,
                     long expiresAt) {
  }

  private final long maxBytes;
  private final long maxAgeMillis;
  private final List<Item> live = new ArrayList<>();

  public RetentionModel(long maxBytes, long maxAgeMillis) {
    this.maxBytes = maxBytes;
    this.maxAgeMillis = maxAgeMillis;
  }

  public void add(Item item, long now) {
    live.add(item);
    trim(now);
  }

  public void drop(Predicate<Item> which, long now) {
    live.removeIf(which);
    trim(now);
  }

  public void trim(long now) {
    while (!live.isEmpty()) {
      Item oldest = live.get(0);
      if (bytes() <= maxBytes && now - oldest.appendedAt() <= maxAgeMillis && oldest.expiresAt() > now) {
        break;
      }
      live.remove(0);
    }
    live.removeIf(item -> item.expiresAt() <= now);
  }

  /** The live items, oldest first. */
  public List<Item> live() {
    return List.copyOf(live);
  }

  public long bytes() {
    return live.stream().mapToLong(Item::bytes).sum();
  }
}
