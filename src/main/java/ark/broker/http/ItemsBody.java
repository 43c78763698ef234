package ark.broker.http;

import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON response around items a store holds rendered: the items go out as they are held, not copied, so a page of
 * the largest items costs the heap nothing beyond the store that keeps them.
 */
final class ItemsBody {
  private static final byte[] OPEN = {'['};
  private static final byte[] COMMA = {','};
  private static final byte[] CLOSE = {']'};

  private final List<byte[]> pieces = new ArrayList<>();

  ItemsBody text(String json) {
    pieces.add(json.getBytes(StandardCharsets.UTF_8));
    return this;
  }

  /** The items as a JSON array. */
  ItemsBody items(List<byte[]> items) {
    pieces.add(OPEN);
    for (int i = 0; i < items.size(); i++) {
      if (i > 0) {
        pieces.add(COMMA);
      }
      pieces.add(items.get(i));
    }
    pieces.add(CLOSE);
    return this;
  }

  /** JSON already rendered, in pieces. */
  ItemsBody pieces(List<byte[]> json) {
    pieces.addAll(json);
    return this;
  }

  Buffer buffer() {
    return BufferInternal.buffer(Unpooled.wrappedBuffer(pieces.size(), pieces.toArray(new byte[0][])));
  }
}
