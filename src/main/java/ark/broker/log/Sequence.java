package ark.broker.log;

import java.util.ArrayList;
import java.util.List;

/**
 * Items in ascending log position, appended at the end and removed from the start, found by position in
 * logarithmic time: the order a store that only appends keeps, whole or per key. Dropped items stay until there are
 * as many as kept ones, then go in one pass. One event loop only.
 */
public final class Sequence<T extends RetainedItems.Item> {
  private final ArrayList<T> items = new ArrayList<>();
  private int head;
  private int dropped;

  public void add(T item) {
    items.add(item);
  }

  public boolean isEmpty() {
    return head == items.size();
  }

  /** Items held, dropped ones included. */
  public int size() {
    return items.size() - head;
  }

  public T get(int index) {
    return items.get(head + index);
  }

  public T first() {
    return items.get(head);
  }

  /** Removes the oldest item; one dropped before leaves the count of dropped ones with it. */
  public void removeFirst() {
    if (items.get(head).dropped()) {
      dropped--;
    }
    items.set(head++, null);
    if (head > 1024 && head > items.size() / 2) {
      items.subList(0, head).clear();
      head = 0;
    }
  }

  /** The index of the first item after {@code position}; {@link #size()} when there is none. */
  public int firstAfter(long position) {
    int low = head;
    int high = items.size();
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (items.get(middle).position() <= position) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low - head;
  }

  /** The items not dropped, in order, as a list of their own (dropping them reshapes this sequence). */
  public List<T> kept() {
    List<T> kept = new ArrayList<>(size() - dropped);
    for (int i = head; i < items.size(); i++) {
      if (!items.get(i).dropped()) {
        kept.add(items.get(i));
      }
    }
    return kept;
  }

  /** An item of this sequence was dropped: once as many are as kept, they all leave. */
  public void droppedOne() {
    if (++dropped > 64 && dropped * 2 > size()) {
      List<T> kept = kept();
      items.clear();
      items.addAll(kept);
      head = 0;
      dropped = 0;
    }
  }
}
