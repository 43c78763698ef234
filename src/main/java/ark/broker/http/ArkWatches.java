package ark.broker.http;

import ark.broker.bus.SequencedItem;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The watches of one store of Ark's broker on this event loop, and the live items the store publishes for them:
 * one bus subscription serves them all, and their number is bounded per event loop.
 *
 * @param <I> what the store publishes
 */
final class ArkWatches<I extends SequencedItem> {
  private final String address;
  private final int maxWatches;
  private final Set<ArkWatch<I>> watches = new LinkedHashSet<>();
  private MessageConsumer<I> consumer;

  /** @param address where the store publishes its items */
  ArkWatches(String address, int maxWatches) {
    this.address = address;
    this.maxWatches = maxWatches;
  }

  Future<Void> start(Vertx vertx) {
    consumer = vertx.eventBus().<I>localConsumer(address, message -> {
      I item = message.body();
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

  /** Refuses (503) a watch beyond the bound, before its stream opens. */
  void requireRoom() {
    if (watches.size() >= maxWatches) {
      throw new ArkProblem(503, "SERVICE_UNAVAILABLE", "this broker already serves " + maxWatches
          + " watches of this kind on this connection's event loop; try again later");
    }
  }

  void add(ArkWatch<I> watch) {
    watches.add(watch);
  }

  void remove(ArkWatch<I> watch) {
    watches.remove(watch);
  }
}
