package ark.broker.log;

import io.vertx.core.Future;

import java.util.List;
import java.util.function.Function;

/**
 * The source of truth: an ordered, durable sequence of records, each a key and a JSON payload at a
 * position (1, 2, 3, ... with possible gaps). Whoever opens the log receives every record through
 * its {@link RecordSink}, its own appends included, in position order and only once durable; that is
 * the only way state is learnt, so a view built from it is the same on every replica.
 *
 * <p>A record the sink cannot decode or apply (it throws) is skipped with an ERROR line naming the log
 * and the position, in replay and live alike, and the log goes on: every replica skips it the same way.
 * Every implementation enforces this by wrapping its sink in {@link SkippingSink}.
 */
public interface EventLog {

  /**
   * Receives the records: each is decoded, then applied. Decoding is pure, so a log may decode many
   * records at once on other threads; applying happens one record at a time, in position order.
   */
  interface RecordSink<T> {
    /** @param key the record's key, as it was appended; null in a log written before records kept their keys */
    T decode(long position, String key, byte[] payload);

    /** Decodes a tombstone: {@code key} ended (see {@link EventLog#remove}). */
    default T decodeTombstone(long position, String key) {
      throw new IllegalStateException("Record at position " + position + " is a tombstone for " + key
          + ", which this log's records never are");
    }

    void apply(long position, T record);
  }

  /**
   * Replays every durable record into the sink (possibly from worker threads, before the returned
   * future completes, while the caller does nothing else), then keeps delivering new ones on the
   * caller's context. A shared log completes only once it has delivered everything that was durable
   * when it was opened.
   */
  <T> Future<Void> open(RecordSink<T> sink);

  /**
   * Appends a record. The future completes with its position once it is durable. The sink receives
   * the record too, like every reader of the log: with the embedded log before the future completes;
   * with a shared log through its reader, possibly after. Whoever needs its own write applied waits
   * for the sink to see it. Fails with {@link LogUnavailableException} when the log cannot confirm
   * the write.
   */
  Future<Long> append(String key, byte[] payload);

  /**
   * Ends {@code key}. A log that compacts by key appends a tombstone, so compaction drops the key
   * altogether; the sink receives it through {@link RecordSink#decodeTombstone}. A log that keeps no
   * keys appends {@code deletion}, a record that the sink reads as the same ending.
   */
  Future<Long> remove(String key, byte[] deletion);

  /**
   * Completes once the sink has received every record that was durable when this was called: how a
   * replica makes sure that something another replica acknowledged, and it has not seen, does not
   * exist. Fails if that cannot be learnt in time.
   */
  Future<Void> catchUp();

  /**
   * Lets the log forget history: {@code entries} hold the latest record of every live key as of
   * position {@code upTo}; records at or below it may be dropped in favour of them. Logs that
   * compact by themselves (a compacted Kafka topic) may ignore this.
   */
  <T> Future<Void> compact(long upTo, List<T> entries, Function<T, LogRecord> toRecord);

  Future<Void> close();

  /**
   * True for a log that is read to be exported ({@link LogExport}): a view of it restates its state for a log elsewhere
   * ({@link LogBackedView.Updates#restatedElsewhere}) as soon as it has replayed it, and hands that to {@link #compact},
   * which writes it to the export instead of compacting anything.
   */
  default boolean isExported() {
    return false;
  }

  /**
   * Null while the log takes writes; else, in a sentence fit for an operator, why it does not now (the
   * embedded log's disk is full or failing). Readiness reports it.
   */
  default String cannotWrite() {
    return null;
  }

  /** One record; {@code position} is where it stands in the log. */
  record LogRecord(long position, String key, byte[] payload) {
  }
}
