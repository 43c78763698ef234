package ark.broker.http;

import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A JSON response around items a store holds rendered: the items go out as they are held, not copied, so a page of
 * the largest items costs the heap nothing beyond the store that keeps them. It is written a piece at a time, going on
 * whenever the client has taken what waited: on its way to the socket a piece is copied into direct memory, which is
 * capped ({@code -XX:MaxDirectMemorySize}) and where a whole page of a full store would not fit.
 */
final class ItemsBody {
  /** About how much of a response waits in direct memory for its client at once, beside Netty's write queue. */
  private static final int PIECE_BYTES = 64 * 1024;

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

  /** Sends it as the response's whole body, with its length. */
  void sendTo(HttpServerResponse response) {
    long length = 0;
    for (byte[] piece : pieces) {
      length += piece.length;
    }
    response.putHeader("Content-Length", Long.toString(length));
    sendFrom(response, 0);
  }

  private void sendFrom(HttpServerResponse response, int first) {
    int next = first;
    while (next < pieces.size() && !response.closed()) {
      CompositeByteBuf piece = Unpooled.compositeBuffer(Integer.MAX_VALUE);
      while (next < pieces.size() && (piece.readableBytes() == 0 || piece.readableBytes() + pieces.get(next).length <= PIECE_BYTES)) {
        piece.addComponent(true, Unpooled.wrappedBuffer(pieces.get(next++)));
      }
      if (next == pieces.size()) {
        response.end(BufferInternal.buffer(piece));
        return;
      }
      response.write(BufferInternal.buffer(piece));
      if (response.writeQueueFull()) {
        int resume = next;
        response.drainHandler(drained -> sendFrom(response, resume));
        return;
      }
    }
  }
}
