package ark.broker.log;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A write is answered once this replica has applied its own record, with what applying it came to
 * (as Kafka Connect's KafkaBasedLog waits for its own offset). With a shared log the acknowledgement
 * of an append and the record itself arrive separately, in either order: so while appends are
 * unacknowledged, the outcomes of records applied meanwhile are kept until their writer learns its
 * position. An unacknowledged append's record lies beyond what was applied when it was made, so older
 * outcomes are dropped as soon as no such append is older. Used from one event loop only.
 */
final class ReadYourWrites<R> {
  private final Vertx vertx;
  private final long timeoutMillis;
  private final Map<Long, Promise<R>> waiting = new HashMap<>();
  /** Outcomes that may belong to an append not acknowledged yet, by position. */
  private final TreeMap<Long, R> unclaimed = new TreeMap<>();
  /** For each unacknowledged append, the position applied when it was made: its record lies beyond. */
  private final TreeMap<Long, Integer> unacknowledgedFloors = new TreeMap<>();
  private long applied;

  /** @param timeoutMillis how long a durable write waits to be read back before it answers "outcome unknown" */
  ReadYourWrites(Vertx vertx, long timeoutMillis) {
    this.vertx = vertx;
    this.timeoutMillis = timeoutMillis;
  }

  /** What applying the record of {@code append} came to, once this replica applied it. */
  Future<R> await(Future<Long> append) {
    long floor = applied;
    unacknowledgedFloors.merge(floor, 1, Integer::sum);
    return append.transform(done -> {
      unacknowledgedFloors.compute(floor, (at, count) -> count == 1 ? null : count - 1);
      Future<R> outcome = done.failed() ? Future.failedFuture(done.cause()) : outcomeAt(done.result());
      forgetUnclaimable();
      return outcome;
    });
  }

  /** The record at {@code position} was applied and came to {@code outcome}. */
  void applied(long position, R outcome) {
    applied = Math.max(applied, position);
    Promise<R> writer = waiting.remove(position);
    if (writer != null) {
      writer.tryComplete(outcome);
    } else if (!unacknowledgedFloors.isEmpty()) {
      unclaimed.put(position, outcome);
    }
  }

  private Future<R> outcomeAt(long position) {
    if (position <= applied) {
      R outcome = unclaimed.remove(position);
      return outcome != null ? Future.succeededFuture(outcome) : Future.failedFuture(new LogUnavailableException(
          "The log acknowledged the write at position " + position + ", but its record could not be applied", null));
    }
    Promise<R> readBack = Promise.promise();
    waiting.put(position, readBack);
    long timer = vertx.setTimer(timeoutMillis, fired -> {
      waiting.remove(position);
      readBack.tryFail(new LogUnavailableException("The log acknowledged the write at position " + position
          + ", but this replica has not read it back within " + timeoutMillis + " ms: it takes effect unless a"
          + " concurrent write came first; read it again to see", null));
    });
    return readBack.future().onComplete(done -> vertx.cancelTimer(timer));
  }

  private void forgetUnclaimable() {
    if (unacknowledgedFloors.isEmpty()) {
      unclaimed.clear();
    } else {
      unclaimed.headMap(unacknowledgedFloors.firstKey(), true).clear();
    }
  }
}
