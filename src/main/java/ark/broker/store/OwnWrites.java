package ark.broker.store;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The writes this process is waiting to see come back from the log. Each record carries a writer id;
 * when the record is applied, the write learns its outcome, exactly as every other replica learns it.
 */
final class OwnWrites<R> {
  private final String prefix = UUID.randomUUID().toString().substring(0, 8);
  private final Map<String, Promise<R>> waiting = new HashMap<>();
  private long count;

  String nextWriter() {
    return prefix + "-" + (++count);
  }

  /** Waits for the record of {@code writer}; fails if {@code appended} fails (then nothing was written). */
  Future<R> await(String writer, Future<Long> appended) {
    Promise<R> applied = Promise.promise();
    waiting.put(writer, applied);
    appended.onFailure(failure -> {
      if (waiting.remove(writer) != null) {
        applied.fail(failure);
      }
    });
    return applied.future();
  }

  /** A record was applied; if it is one of ours, its writer learns the outcome. */
  void applied(String writer, R outcome) {
    Promise<R> own = writer == null ? null : waiting.remove(writer);
    if (own != null) {
      own.complete(outcome);
    }
  }
}
