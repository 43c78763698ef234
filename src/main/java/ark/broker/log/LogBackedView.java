package ark.broker.log;

import ark.broker.log.EventLog.LogRecord;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A view kept from an event log, as Confluent's KafkaStore keeps one from a compacted topic: every record
 * (replayed at start, then each new one once durable) is decoded and handed to the owner's
 * {@link Updates}; a write is answered with what applying its own record came to here, so the writer
 * reads its own write; now and then the live state is written back as a snapshot so the log can forget
 * older records. The owner keeps the state itself. Used from the owner's event loop only.
 *
 * @param <E> the record type, JSON in the log
 * @param <R> what applying a record comes to, which its writer learns
 */
public final class LogBackedView<E, R> {
  private static final Logger LOG = LoggerFactory.getLogger(LogBackedView.class);

  /** What the owner does with the records (as KafkaStore's StoreUpdateHandler). */
  public interface Updates<E, R> {
    /** Applies one record to the owner's state, in log order; the result (never null) is what its writer learns. */
    R apply(long position, E record);

    /** The record that a tombstone of {@code key} stands for. */
    default E ended(String key) {
      throw new IllegalStateException("a tombstone for " + key + " in a log whose records never end a key");
    }

    /**
     * What the log may forget as of {@code position}: records up to a position, in favour of records that restate
     * the live state they still matter for; encoded later, off the event loop. A store of keyed state restates all
     * of it and forgets everything up to {@code position}; a store that only appends forgets what has aged out.
     */
    Snapshot<E> snapshot(long position);

    /**
     * The state as of {@code position} restated for another log, where positions start anew (a move between the
     * embedded log and Kafka): what {@link #snapshot} restates, unless its records name positions of this log, which
     * mean nothing there; those restate the state as records that take their version from their new position.
     */
    default Snapshot<E> restatedElsewhere(long position) {
      return snapshot(position);
    }
  }

  /** What a snapshot keeps: the log forgets records up to {@code upTo}, and {@code entries} stand for them. */
  public record Snapshot<E>(long upTo, List<Restatement<E>> entries) {
  }

  /** One entry of a snapshot: the record restating {@code key} as it stands since {@code position}. */
  public record Restatement<E>(long position, String key, E record) {
  }

  private final EventLog log;
  private final String name;
  private final RecordCodec<E> codec;
  private final Predicate<E> isRestatement;
  private final long snapshotEveryRecords;
  private final Timer appendTimer;
  private final ReadYourWrites<R> ownWrites;
  /**
   * This view's appends whose records it has not applied yet, by their encoded bytes: when the log hands such
   * a payload back (the embedded log the very array, Kafka equal bytes read back from the topic), it is the
   * record this view just encoded, so it is applied without being decoded again. An entry lives until its
   * writer has its outcome (applied, failed or timed out), so there are at most as many as writes in flight.
   * The embedded log's writer thread reads it while the event loop adds and removes.
   */
  private final Map<EncodedRecord, E> ownInFlight = new ConcurrentHashMap<>();
  private Updates<E, R> updates;
  private boolean live;
  private long position;
  /** Where the newest snapshot was taken (or replayed from): another is due {@code snapshotEveryRecords} later. */
  private long snapshotAt;
  /** The snapshot being written, if any; one at a time. */
  private Future<Void> compaction = Future.succeededFuture();

  /**
   * @param name the log's name ("questions", "sessions") for metrics and the log
   * @param isRestatement whether a record restates a state rather than changing it (snapshots write such records)
   * @param snapshotEveryRecords records between two snapshots
   * @param readBackTimeoutMillis how long a write waits to read its own record back from a shared log before it
   *     answers that the write is durable but its outcome not yet known
   */
  public LogBackedView(Vertx vertx, EventLog log, String name, RecordCodec<E> codec, Predicate<E> isRestatement,
                       long snapshotEveryRecords, long readBackTimeoutMillis, MeterRegistry meters) {
    this.log = log;
    this.name = name;
    this.codec = codec;
    this.isRestatement = isRestatement;
    this.snapshotEveryRecords = snapshotEveryRecords;
    this.ownWrites = new ReadYourWrites<>(vertx, readBackTimeoutMillis);
    this.appendTimer = Timer.builder("ark_broker_log_append")
        .description("Time from handing a record to the log until it is durable")
        .tag("log", name)
        .publishPercentileHistogram()
        .register(meters);
  }

  /** Replays the whole log into {@code updates}, then keeps applying new records as they come. */
  public Future<Void> open(Updates<E, R> updates) {
    this.updates = updates;
    return log.open(new EventLog.RecordSink<E>() {
      @Override
      public E decode(long at, String key, byte[] payload) {
        E own = ownInFlight.isEmpty() ? null : ownInFlight.get(new EncodedRecord(payload));
        if (own != null) {
          return own;
        }
        try {
          return codec.decode(payload);
        } catch (IOException e) {
          throw new IllegalStateException("the " + name + " log's record at position " + at + " is unreadable: "
              + e.getMessage(), e);
        }
      }

      @Override
      public E decodeTombstone(long at, String key) {
        return updates.ended(key);
      }

      @Override
      public void apply(long at, E record) {
        onRecord(at, record);
      }
    }).onSuccess(replayed -> {
      live = true;
      if (log.isExported()) {
        compaction = compacted(updates.restatedElsewhere(position));
      }
    });
  }

  /** Whether replay is over: records applied now are news, worth telling others about. */
  public boolean isLive() {
    return live;
  }

  /** Appends a record; completes, once this replica applied it, with what applying it came to. */
  public Future<R> append(String key, E record) {
    return written(record, payload -> log.append(key, payload));
  }

  /** Ends {@code key}; {@code deletion} is the record for logs that keep no tombstones. */
  public Future<R> remove(String key, E deletion) {
    return written(deletion, payload -> log.remove(key, payload));
  }

  /** Writes {@code record} with {@code write}; completes with what applying it came to here. */
  private Future<R> written(E record, Function<byte[], Future<Long>> write) {
    EncodedRecord encoded = new EncodedRecord(codec.encode(record));
    ownInFlight.put(encoded, record);
    return ownWrites.await(timed(write.apply(encoded.payload()))).onComplete(done -> ownInFlight.remove(encoded));
  }

  /**
   * Completes once this replica has applied every record that was durable when called, or failed to
   * learn that in time (then the caller goes on with what it has): how something another replica
   * acknowledged a moment ago is found here too.
   */
  public Future<Void> catchUp() {
    return log.catchUp().recover(failure -> {
      LOG.debug("Could not catch up with the {} log: {}", name, failure.getMessage());
      return Future.succeededFuture();
    });
  }

  /** The position of the newest record applied here. */
  public long position() {
    return position;
  }

  /**
   * {@code reading} once this replica has applied every record that was durable when called (or failed to learn that
   * in time, then from what it has): a read that sees what another replica acknowledged a moment ago.
   */
  public <T> Future<T> afterCatchUp(Supplier<T> reading) {
    return catchUp().map(caughtUp -> reading.get());
  }

  public Future<Void> close() {
    return compaction.eventually(log::close);
  }

  private void onRecord(long at, E record) {
    position = Math.max(position, at);
    R outcome = Objects.requireNonNull(updates.apply(at, record), "what applying a record came to");
    if (!live) {
      if (isRestatement.test(record)) {
        snapshotAt = at;
      }
      return;
    }
    ownWrites.applied(at, outcome);
    compactIfDue();
  }

  private void compactIfDue() {
    if (!compaction.isComplete() || position - snapshotAt < snapshotEveryRecords) {
      return;
    }
    long at = position;
    // The next one is due a period after this one was taken, whether it succeeds or not (another attempt at once
    // would most likely fail the same way), and whatever it lets the log forget.
    snapshotAt = at;
    compaction = compacted(updates.snapshot(at))
        .onFailure(failure -> LOG.error("Snapshot of the {} log at {} failed; will try again", name, at, failure));
  }

  private Future<Void> compacted(Snapshot<E> snapshot) {
    return log.compact(snapshot.upTo(), snapshot.entries(),
        entry -> new LogRecord(entry.position(), entry.key(), codec.encode(entry.record())));
  }

  private Future<Long> timed(Future<Long> appended) {
    Timer.Sample sample = Timer.start();
    return appended.onComplete(done -> sample.stop(appendTimer));
  }


}
