package ark.broker.http;

import ark.broker.bus.ItemPage;
import ark.broker.bus.SequencedItem;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * One watch of a store of Ark's broker: from a cursor it first replays what the store holds after it, a page at a
 * time and only as fast as the reader reads, while live items wait; then live items. The sequence of the last item
 * sent drops anything seen twice, so a watch resumed from an item's cursor, on any replica, misses nothing and
 * repeats nothing.
 *
 * @param <I> the live items the store publishes
 */
final class ArkWatch<I extends SequencedItem> {
  /** How many items one replay page asks the store for. */
  static final int PAGE = 500;
  /** Live items a replay may hold back before the reader is cut off to resume later. */
  private static final int MAX_HELD = 10_000;

  /** The store's items after a cursor, a page at a time. */
  interface Replay {
    Future<ItemPage> after(long cursor, int limit);
  }

  private final ArkSse sse;
  private final Predicate<I> wanted;
  private long lastSent;
  private List<I> held;

  /** @param wanted which live items this watch sends (its filter) */
  ArkWatch(ArkSse sse, Predicate<I> wanted) {
    this.sse = sse;
    this.wanted = wanted;
  }

  /** Live from now; nothing replayed. */
  void live() {
    lastSent = -1;
  }

  /** From {@code cursor} when one is given ({@link #replay}), else {@link #live} from now. */
  void from(Long cursor, Replay replay) {
    if (cursor == null) {
      live();
    } else {
      replay(cursor, replay);
    }
  }

  /** Replays what {@code replay} holds after {@code cursor}, then goes live; a failure ends the stream. */
  void replay(long cursor, Replay replay) {
    lastSent = cursor;
    held = new ArrayList<>();
    page(replay);
  }

  void end() {
    sse.end();
  }

  /** @param frame the item as its event, made once for every watch it is offered to */
  void offer(I live, Buffer frame) {
    if (!wanted.test(live)) {
      return;
    }
    if (held != null) {
      held.add(live);
      if (held.size() > MAX_HELD) {
        sse.end();
      }
      return;
    }
    send(live.sequence(), frame);
  }

  private void page(Replay replay) {
    replay.after(lastSent, PAGE).onComplete(done -> {
      if (sse.ended()) {
        return;
      }
      if (done.failed()) {
        sse.end();
        return;
      }
      ItemPage page = done.result();
      page.items().forEach(sse::data);
      lastSent = Math.max(lastSent, page.last());
      if (page.hasMore()) {
        if (sse.writable()) {
          page(replay);
        } else {
          sse.whenDrained(() -> page(replay));
        }
        return;
      }
      List<I> waiting = held;
      held = null;
      waiting.forEach(live -> send(live.sequence(), ArkSse.frame(live.item())));
    });
  }

  private void send(long sequence, Buffer frame) {
    if (sequence > lastSent) {
      lastSent = sequence;
      sse.frame(frame);
    }
  }
}
