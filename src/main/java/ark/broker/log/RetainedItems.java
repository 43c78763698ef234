package ark.broker.log;

import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * What a store that only appends keeps of its log in memory: items in log order, bounded by age and by bytes, the
 * oldest dropped first, and each item possibly expiring sooner (a caller's ttl) or dropped early (a deletion). Every
 * replica applies the same records, so it keeps the same items (ages measured on its own clock). One event loop only.
 *
 * @param <T> the store's items
 */
public final class RetainedItems<T extends RetainedItems.Item> {
  /** One kept item: where it stands in the log, when it was appended, until when it is visible, what it weighs. */
  public abstract static class Item {
    final long position;
    final long appendedAt;
    final long expiresAt;
    final int bytes;
    boolean dropped;

    /**
     * @param expiresAt epoch milliseconds after which it is no longer visible, or {@link Long#MAX_VALUE}
     * @param bytes what keeping it costs, about: the size of its rendering
     */
    protected Item(long position, long appendedAt, long expiresAt, int bytes) {
      this.position = position;
      this.appendedAt = appendedAt;
      this.expiresAt = expiresAt;
      this.bytes = bytes;
    }

    public long position() {
      return position;
    }

    public long appendedAt() {
      return appendedAt;
    }

    public boolean dropped() {
      return dropped;
    }

    /** What keeping it counts against the store's bound. */
    public int bytes() {
      return bytes;
    }
  }

  private final Sequence<T> all = new Sequence<>();
  private long bytes;
  private int kept;
  /** The soonest an item with an expiry of its own expires: no sweep is needed before. */
  private long nextExpiry = Long.MAX_VALUE;
  private long lastPosition;

  /** Every item kept (and some dropped ones, until they are trimmed), oldest first. */
  public Sequence<T> all() {
    return all;
  }

  public int size() {
    return kept;
  }

  public long bytes() {
    return bytes;
  }

  public void add(T item) {
    all.add(item);
    bytes += item.bytes;
    kept++;
    lastPosition = item.position;
    nextExpiry = Math.min(nextExpiry, item.expiresAt);
  }

  /** Drops an item before its time (a deletion); the caller takes it out of its own indexes. */
  public void drop(T item) {
    if (!item.dropped) {
      item.dropped = true;
      bytes -= item.bytes;
      kept--;
      all.droppedOne();
    }
  }

  /**
   * Drops the items of {@code candidates} (this store's or one of its indexes) still kept that {@code which} takes (a
   * deletion, a purge), telling {@code onDrop} of each so the caller takes it out of its indexes.
   */
  public void dropAll(Sequence<T> candidates, Predicate<T> which, Consumer<T> onDrop) {
    for (T item : candidates.kept()) {
      if (which.test(item)) {
        drop(item);
        onDrop.accept(item);
      }
    }
  }

  /**
   * Drops, oldest first, what is beyond the bounds: while more than {@code maxBytes} are kept, and what was appended
   * more than {@code maxAgeMillis} before {@code now}; then, when one is due, every item whose own expiry has passed.
   * Tells {@code onDrop} of each, so the caller takes it out of its indexes.
   */
  public void trim(long now, long maxBytes, long maxAgeMillis, Consumer<T> onDrop) {
    while (!all.isEmpty()) {
      T oldest = all.first();
      if (!oldest.dropped && bytes <= maxBytes && now - oldest.appendedAt <= maxAgeMillis && oldest.expiresAt > now) {
        break;
      }
      all.removeFirst();
      if (!oldest.dropped) {
        oldest.dropped = true;
        bytes -= oldest.bytes;
        kept--;
        onDrop.accept(oldest);
      }
    }
    if (now >= nextExpiry) {
      long next = Long.MAX_VALUE;
      java.util.List<T> expired = new java.util.ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        T item = all.get(i);
        if (!item.dropped && item.expiresAt <= now) {
          expired.add(item);
        } else if (!item.dropped) {
          next = Math.min(next, item.expiresAt);
        }
      }
      nextExpiry = next;
      for (T item : expired) {
        drop(item);
        onDrop.accept(item);
      }
    }
  }

  /** Up to where the log may forget: just before the oldest item kept, or all it has when none is. */
  public long floor() {
    return all.isEmpty() ? lastPosition : all.first().position - 1;
  }
}
