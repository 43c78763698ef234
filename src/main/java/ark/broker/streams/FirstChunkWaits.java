package ark.broker.streams;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Completions waiting for the first chunk of a stream that has none yet: the post they end may still be on its way,
 * on a connection of its own or through another replica, and Ark's executor sends its {@code /complete} right after
 * its post without waiting for it. Each wait ends once a chunk of its Query is applied here, or once the configured
 * time is over, whichever comes first; timers, not blocking. One event loop only.
 */
final class FirstChunkWaits {
  private final Vertx vertx;
  private final long millis;
  private final Map<String, List<Promise<Void>>> waiting = new HashMap<>();

  /** @param millis how long a wait lasts at most; positive */
  FirstChunkWaits(Vertx vertx, long millis) {
    this.vertx = vertx;
    this.millis = millis;
  }

  /** Completes once a chunk of the Query is applied here, or once the wait is over. */
  Future<Void> await(String queryId) {
    Promise<Void> released = Promise.promise();
    waiting.computeIfAbsent(queryId, id -> new ArrayList<>()).add(released);
    long timer = vertx.setTimer(millis, over -> giveUp(queryId, released));
    return released.future().onComplete(done -> vertx.cancelTimer(timer));
  }

  /** A chunk (or the completion) of the Query was applied here: its waits end. */
  void applied(String queryId) {
    List<Promise<Void>> of = waiting.remove(queryId);
    if (of != null) {
      of.forEach(Promise::tryComplete);
    }
  }

  private void giveUp(String queryId, Promise<Void> wait) {
    List<Promise<Void>> of = waiting.get(queryId);
    if (of != null && of.remove(wait) && of.isEmpty()) {
      waiting.remove(queryId);
    }
    wait.tryComplete();
  }
}
