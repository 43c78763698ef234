package ark.broker.bus;

import java.util.List;

/**
 * A page of items of one of Ark's broker stores, each one JSON object as readers get it, rendered once by the store.
 *
 * @param total how many items the read matches, its cursor aside
 * @param last the sequence of the page's last item, or the read's cursor when the page is empty
 */
public record ItemPage(List<byte[]> items, long total, boolean hasMore, long last) {
}
