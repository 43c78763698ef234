package ark.broker.bus;

import ark.broker.log.RetainedItems;
import ark.broker.log.Sequence;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A page of items of one of Ark's broker stores, each one JSON object as readers get it, rendered once by the store.
 *
 * @param total how many items the read matches, its cursor aside
 * @param last the sequence of the page's last item, or the read's cursor when the page is empty
 */
public record ItemPage(List<byte[]> items, long total, boolean hasMore, long last) {

  /**
   * The kept items of {@code candidates} after {@code cursor} that {@code wanted} accepts, in order, at most
   * {@code limit} of them (all when 0), each as {@code item} renders it.
   *
   * @param total how many items the read matches, for the page to say
   */
  public static <T extends RetainedItems.Item> ItemPage after(Sequence<T> candidates, long cursor, int limit, long total,
                                                             Predicate<T> wanted, Function<T, byte[]> item) {
    int most = limit == 0 ? Integer.MAX_VALUE : limit;
    List<byte[]> items = new ArrayList<>(Math.min(most, 256));
    long last = cursor;
    for (int i = candidates.firstAfter(cursor); i < candidates.size(); i++) {
      T candidate = candidates.get(i);
      if (candidate.dropped() || !wanted.test(candidate)) {
        continue;
      }
      if (items.size() == most) {
        return new ItemPage(items, total, true, last);
      }
      items.add(item.apply(candidate));
      last = candidate.position();
    }
    return new ItemPage(items, total, false, last);
  }
}
