package ark.broker.store;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes waiting until the log has delivered the position their append returned: with a shared log
 * the acknowledgement of an append and the record itself arrive separately, in either order. Used
 * from one event loop only.
 */
final class AppliedPositions {
  private final TreeMap<Long, List<Promise<Void>>> waiting = new TreeMap<>();
  private long applied;

  /** Completes once the record at {@code position} has been applied. */
  Future<Void> reached(long position) {
    if (position <= applied) {
      return Future.succeededFuture();
    }
    Promise<Void> promise = Promise.promise();
    waiting.computeIfAbsent(position, ignored -> new ArrayList<>(1)).add(promise);
    return promise.future();
  }

  void applied(long position) {
    applied = Math.max(applied, position);
    Map<Long, List<Promise<Void>>> done = waiting.headMap(applied, true);
    done.values().forEach(promises -> promises.forEach(Promise::complete));
    done.clear();
  }
}
