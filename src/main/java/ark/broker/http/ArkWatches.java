package ark.broker.http;

import ark.broker.bus.SequencedItem;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The watches of one store of Ark's broker on this event loop, and the live items the store publishes for them:
 * one bus subscription serves them all, and their number is bounded per event loop.
 *
 * @param <I> what the store publishes
 */
final class ArkWatches<I extends SequencedItem> {
  private final String address;
  private final ArkApiSettings settings;
  private final Consumer<I> alsoTo;
  private final Set<ArkWatch<I>> watches = new LinkedHashSet<>();
  private MessageConsumer<I> consumer;

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
    consumer = vertx.eventBus().<I>localConsumer(address, message -> {
      I item = message.body();
      alsoTo.accept(item);
      // A copy: a watch whose reader fell behind ends, and leaves, while items are offered.
      List.copyOf(watches).forEach(watch -> watch.offer(item));
    });
    return consumer.completion();
  }

  /** Ends every watch (this replica stops serving): readers reconnect, to another replica, from their cursor. */
  void endAll() {
    List.copyOf(watches).forEach(ArkWatch::end);
  }

  Future<Void> stop() {
    watches.clear();
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
