package ark.broker.http;

import ark.broker.bus.SequencedItem;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The watches of one store of Ark's broker on this event loop, and the live items the store publishes for them:
 * one bus subscription serves them all, and their number is bounded per event loop. Items go out to the watches in
 * turns of at most {@link #TURN_NANOS}, so a large item offered to many readers cannot keep the event loop from its
 * sockets (and from answering {@code /livez}) for long: the event loop reads its sockets again only after a batch of
 * queued tasks, each of which then costs at most a turn.
 *
 * @param <I> what the store publishes
 */
final class ArkWatches<I extends SequencedItem> {
  /** How long one turn of handing items to watches may keep the event loop. */
  private static final long TURN_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(1);

  /** An item on its way to the watches open when it arrived; {@code next} is the first not offered it yet. */
  private static final class FanOut<I extends SequencedItem> {
    final I item;
    final Buffer frame;
    final List<ArkWatch<I>> to;
    int next;

    FanOut(I item, Buffer frame, List<ArkWatch<I>> to) {
      this.item = item;
      this.frame = frame;
      this.to = to;
    }
  }

  private final String address;
  private final ArkApiSettings settings;
  private final Consumer<I> alsoTo;
  private final Set<ArkWatch<I>> watches = new LinkedHashSet<>();
  private final ArrayDeque<FanOut<I>> unsent = new ArrayDeque<>();
  private MessageConsumer<I> consumer;
  private Context context;

  /** @param address where the store publishes its items */
  ArkWatches(String address, ArkApiSettings settings) {
    this(address, settings, item -> { });
  }

  /** @param alsoTo gets every item too, before the watches (the readers of one Query's stream) */
  ArkWatches(String address, ArkApiSettings settings, Consumer<I> alsoTo) {
    this.address = address;
    this.settings = settings;
    this.alsoTo = alsoTo;
  }

  Future<Void> start(Vertx vertx) {
    context = vertx.getOrCreateContext();
    consumer = vertx.eventBus().<I>localConsumer(address, message -> {
      I item = message.body();
      alsoTo.accept(item);
      if (watches.isEmpty()) {
        return;
      }
      // A copy: a watch whose reader fell behind ends, and leaves, while items are offered.
      unsent.add(new FanOut<>(item, ArkSse.frame(item.item()), List.copyOf(watches)));
      if (unsent.size() == 1) {
        handOut();
      }
    });
    return consumer.completion();
  }

  /** Offers the unsent items, in order, for one turn; what is left waits for the next. */
  private void handOut() {
    long until = System.nanoTime() + TURN_NANOS;
    while (!unsent.isEmpty()) {
      FanOut<I> fanOut = unsent.peek();
      while (fanOut.next < fanOut.to.size()) {
        fanOut.to.get(fanOut.next++).offer(fanOut.item, fanOut.frame);
        if (System.nanoTime() - until > 0) {
          context.runOnContext(later -> handOut());
          return;
        }
      }
      unsent.poll();
    }
  }

  /** Ends every watch (this replica stops serving): readers reconnect, to another replica, from their cursor. */
  void endAll() {
    List.copyOf(watches).forEach(ArkWatch::end);
  }

  Future<Void> stop() {
    watches.clear();
    unsent.clear();
    return consumer == null ? Future.succeededFuture() : consumer.unregister();
  }

  /**
   * Opens the request's event stream as a watch of the items {@code wanted}; refuses (503) one beyond the bound,
   * before the stream opens. The caller starts it ({@link ArkWatch#live} or {@link ArkWatch#replay}).
   */
  ArkWatch<I> open(RoutingContext ctx, Predicate<I> wanted) {
    if (watches.size() >= settings.maxWatchesPerLoop()) {
      throw new ArkProblem(503, "SERVICE_UNAVAILABLE", "this broker already serves " + settings.maxWatchesPerLoop()
          + " watches of this kind on this connection's event loop; try again later");
    }
    List<ArkWatch<I>> opened = new ArrayList<>(1);
    ArkSse sse = ArkSse.open(ctx, settings, () -> watches.remove(opened.get(0)));
    ArkWatch<I> watch = new ArkWatch<>(sse, wanted);
    opened.add(watch);
    watches.add(watch);
    return watch;
  }
}
