package ark.broker.store;

import io.vertx.core.Future;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Runs asynchronous tasks one after another per key and concurrently across keys, so two commands
 * for one question never decide on the same state while different questions proceed in parallel.
 * Used from one event loop only.
 */
final class KeyedSequencer {
  private final Map<String, Future<?>> tails = new HashMap<>();

  <T> Future<T> run(String key, Supplier<Future<T>> task) {
    Future<?> previous = tails.get(key);
    Future<T> result = previous == null ? start(task) : previous.transform(ignored -> start(task));
    tails.put(key, result);
    result.onComplete(ignored -> tails.remove(key, result));
    return result;
  }

  boolean isBusy(String key) {
    return tails.containsKey(key);
  }

  private static <T> Future<T> start(Supplier<Future<T>> task) {
    try {
      return task.get();
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }
}
