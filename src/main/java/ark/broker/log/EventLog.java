package ark.broker.log;

import io.vertx.core.Future;

import java.util.List;
import java.util.function.Function;

/**
 * The source of truth: an ordered, durable sequence of records, each a key and a JSON payload at a
 * position (1, 2, 3, ... with possible gaps). Whoever opens the log receives every record through
 * its {@link RecordSink}, its own appends included, in position order and only once durable; that is
 * the only way state is learnt, so a view built from it is the same on every replica.
 */
public interface EventLog {

  /**
   * Receives the records: each is decoded, then applied. Decoding is pure, so a log may decode many
   * records at once on other threads; applying happens one record at a time, in position order.
   */
  interface RecordSink<T> {
    T decode(long position, byte[] payload);

    void apply(long position, T record);
  }

  /**
   * Replays every durable record into the sink (possibly from worker threads, before the returned
   * future completes, while the caller does nothing else), then keeps delivering new ones on the
   * caller's context.
   */
  <T> Future<Void> open(RecordSink<T> sink);

  /**
   * Appends a record. The future completes with its position once it is durable and, by then, the
   * sink has already received it. Fails with {@link LogUnavailableException} when the log cannot
   * take writes; nothing is then written.
   */
  Future<Long> append(String key, byte[] payload);

  /**
   * Lets the log forget history: {@code entries} hold the latest record of every live key as of
   * position {@code upTo}; records at or below it may be dropped in favour of them. Logs that
   * compact by themselves (a compacted Kafka topic) may ignore this.
   */
  <T> Future<Void> compact(long upTo, List<T> entries, Function<T, LogRecord> toRecord);

  Future<Void> close();

  /** One record; {@code position} is where it stands in the log. */
  record LogRecord(long position, String key, byte[] payload) {
  }
}
