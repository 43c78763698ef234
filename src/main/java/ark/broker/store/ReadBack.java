package ark.broker.store;

import ark.broker.log.LogUnavailableException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * A write is answered once this replica has read its record back from the log. With a shared log
 * that can lag behind the acknowledgement (Kafka went away just after acknowledging); then the
 * caller is told, in time, that the write is durable but its outcome not yet known here.
 */
final class ReadBack {
  private ReadBack() {
  }

  /**
   * @param appended the append, completing with the record's position once durable
   * @param readBack completes once this replica applied that record
   */
  static <T> Future<T> within(Vertx vertx, long millis, Future<Long> appended, Future<T> readBack) {
    return appended.compose(position -> {
      if (readBack.isComplete()) {
        return readBack;
      }
      Promise<T> answered = Promise.promise();
      long timer = vertx.setTimer(millis, fired -> answered.tryFail(new LogUnavailableException("The log acknowledged"
          + " the write at position " + position + ", but this replica has not read it back within " + millis
          + " ms: it takes effect unless a concurrent write came first; read it again to see", null)));
      readBack.onComplete(done -> {
        vertx.cancelTimer(timer);
        if (done.succeeded()) {
          answered.tryComplete(done.result());
        } else {
          answered.tryFail(done.cause());
        }
      });
      return answered.future();
    });
  }
}
