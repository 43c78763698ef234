package ark.broker.store;

import ark.broker.log.EventLog;
import ark.broker.log.EventLog.LogRecord;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

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
final class LogBackedView<E, R> {
  private static final Logger LOG = LoggerFactory.getLogger(LogBackedView.class);

  /** What the owner does with the records (as KafkaStore's StoreUpdateHandler). */
  interface Updates<E, R> {
    /** Applies one record to the owner's state, in log order; the result is what its writer learns. */
    R apply(long position, E record);

    /** The record that a tombstone of {@code key} stands for. */
    default E ended(String key) {
      throw new IllegalStateException("a tombstone for " + key + " in a log whose records never end a key");
    }

    /** The live state as records that restate it, for a snapshot; encoded later, off the event loop. */
    List<Restatement<E>> snapshot();
  }

  /** One entry of a snapshot: the record restating {@code key} as it stands since {@code position}. */
  record Restatement<E>(long position, String key, E record) {
  }

  private final EventLog log;
  private final String name;
  private final ObjectReader reader;
  private final Predicate<E> isRestatement;
  private final StoreSettings settings;
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
  private long snapshotAt;
  /** The snapshot being written, if any; one at a time. */
  private Future<Void> compaction = Future.succeededFuture();

  /**
   * @param name the log's name ("questions", "sessions") for metrics and the log
   * @param isRestatement whether a record restates a state rather than changing it (snapshots write such records)
   */
  LogBackedView(Vertx vertx, EventLog log, String name, Class<E> type, Predicate<E> isRestatement,
                StoreSettings settings, MeterRegistry meters) {
    this.log = log;
    this.name = name;
    this.reader = QuestionJson.logReader(type);
    this.isRestatement = isRestatement;
    this.settings = settings;
    this.ownWrites = new ReadYourWrites<>(vertx, settings.readBackTimeoutMillis());
    this.appendTimer = Timer.builder("ark_broker_log_append")
        .description("Time from handing a record to the log until it is durable")
        .tag("log", name)
        .publishPercentileHistogram()
        .register(meters);
  }

  /** Replays the whole log into {@code updates}, then keeps applying new records as they come. */
  Future<Void> open(Updates<E, R> updates) {
    this.updates = updates;
    return log.open(new EventLog.RecordSink<E>() {
      @Override
      public E decode(long at, byte[] payload) {
        E own = ownInFlight.isEmpty() ? null : ownInFlight.get(new EncodedRecord(payload));
        if (own != null) {
          return own;
        }
        try {
          return reader.readValue(payload);
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
    }).onSuccess(replayed -> live = true);
  }

  /** Whether replay is over: records applied now are news, worth telling others about. */
  boolean isLive() {
    return live;
  }

  /** Appends a record; completes, once this replica applied it, with what applying it came to. */
  Future<R> append(String key, E record) {
    return written(record, payload -> log.append(key, payload));
  }

  /** Ends {@code key}; {@code deletion} is the record for logs that keep no tombstones. */
  Future<R> remove(String key, E deletion) {
    return written(deletion, payload -> log.remove(key, payload));
  }

  /** Writes {@code record} with {@code write}; completes with what applying it came to here. */
  private Future<R> written(E record, Function<byte[], Future<Long>> write) {
    EncodedRecord encoded = new EncodedRecord(encode(record));
    ownInFlight.put(encoded, record);
    return ownWrites.await(timed(write.apply(encoded.payload()))).onComplete(done -> ownInFlight.remove(encoded));
  }

  /**
   * Completes once this replica has applied every record that was durable when called, or failed to
   * learn that in time (then the caller goes on with what it has): how something another replica
   * acknowledged a moment ago is found here too.
   */
  Future<Void> catchUp() {
    return log.catchUp().recover(failure -> {
      LOG.debug("Could not catch up with the {} log: {}", name, failure.getMessage());
      return Future.succeededFuture();
    });
  }

  Future<Void> close() {
    return compaction.eventually(log::close);
  }

  private void onRecord(long at, E record) {
    position = Math.max(position, at);
    R outcome = updates.apply(at, record);
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
    if (!compaction.isComplete() || position - snapshotAt < settings.snapshotEveryEvents()) {
      return;
    }
    long upTo = position;
    compaction = log.compact(upTo, updates.snapshot(),
            entry -> new LogRecord(entry.position(), entry.key(), encode(entry.record())))
        .onComplete(done -> {
          if (done.failed()) {
            LOG.error("Snapshot of the {} log at {} failed; will try again", name, upTo, done.cause());
          }
          // After a failure too: another attempt at once would most likely fail the same way.
          snapshotAt = done.succeeded() ? upTo : position;
        });
  }

  private Future<Long> timed(Future<Long> appended) {
    Timer.Sample sample = Timer.start();
    return appended.onComplete(done -> sample.stop(appendTimer));
  }

  private byte[] encode(E record) {
    try {
      return QuestionJson.LOG_WRITER.writeValueAsBytes(record);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
