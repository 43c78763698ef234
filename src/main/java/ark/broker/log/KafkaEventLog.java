package ark.broker.log;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.kafka.client.consumer.KafkaReadStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The shared log: a compacted Kafka topic with one partition that every replica reads in full, from
 * the start, with its own consumer (no group). A record's position is its offset + 1, so positions
 * (and resourceVersions) mean the same on every replica, and 0 still means "nothing yet".
 *
 * <p>An append completes once Kafka acknowledged it (idempotent producer, {@code acks=all}). The record reaches the
 * sink through the consumer, like everyone else's, unless every record before it was applied here when it is
 * acknowledged: then it is applied on the acknowledgement, as the consumer would (which skips it when it comes), and
 * its writer does not wait for the fetch. When Kafka cannot acknowledge
 * an append within the delivery timeout, the append fails with {@link LogUnavailableException}. The
 * record is then either absent or, if Kafka stored it but the acknowledgement was lost, present whole
 * and applied by every replica like any other; never partly. Records carry full snapshots and the
 * version they expect, so such a late record is decided exactly as if it had been acknowledged.
 *
 * <p>Every record carries its {@link FormatVersion format} in a header (records without one are of format 1). A
 * record of a newer format stops this replica reading: it is not ready, takes no writes, and says why, rather than
 * misread what a newer version wrote.
 */
public final class KafkaEventLog implements EventLog {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaEventLog.class);
  /**
   * How long one read waits for records. Kafka answers the consumer's fetch as soon as a record arrives, so this bounds
   * only how often an idle replica wakes up (see {@link KafkaLogSettings#consumer}), and how late a catch-up learns
   * of a position that compaction moved beyond the last record.
   */
  private static final Duration POLL = Duration.ofSeconds(1);
  private static final long RETRY_MILLIS = 500;
  private static final long METADATA_RETRY_MILLIS = 10;
  /**
   * How long the reader waits before its next read when the last one brought back only records this replica had
   * applied on their acknowledgement (see the class comment): nothing waits for them, and the next read, which the
   * consumer asks Kafka for when this one is taken, then carries all written meanwhile instead of one produce
   * request's worth. A record of another replica's that arrives then reaches this one that much later.
   */
  private static final long OWN_RECORDS_READ_PAUSE_MILLIS = 1;

  private final Vertx vertx;
  private final KafkaLogSettings settings;
  private final TopicPartition partition;
  /** Catch-ups waiting for the consumer to pass an offset, by that offset. */
  private final TreeMap<Long, List<Promise<Void>>> waiting = new TreeMap<>();
  private final List<Promise<Long>> wantEnd = new ArrayList<>();

  private Context context;
  private RecordSink<Object> sink;
  private Admin admin;
  private KafkaProducer<String, byte[]> producer;
  private KafkaReadStream<String, byte[]> consumer;
  /** The consumer's position: every record below this offset has been delivered. */
  private long delivered;
  private long appliedPosition;
  private long recordsDelivered;
  private boolean endRequested;
  private boolean writable = true;
  private boolean readable = true;
  /** Why this replica stopped reading (a record of a newer format), or null. */
  private volatile String refusal;
  private volatile boolean closed;

  public KafkaEventLog(Vertx vertx, KafkaLogSettings settings) {
    this.vertx = vertx;
    this.settings = settings;
    this.partition = new TopicPartition(settings.topic(), 0);
  }

  @Override
  public <T> Future<Void> open(RecordSink<T> sink) {
    this.context = vertx.getOrCreateContext();
    this.sink = new SkippingSink("Kafka topic " + settings.topic(), sink);
    long started = System.nanoTime();
    return vertx.executeBlocking(() -> {
          admin = Admin.create(settings.admin());
          KafkaTopic.ensure(admin, settings);
          return null;
        })
        .compose(ready -> endOffset())
        .compose(end -> vertx.executeBlocking(this::openProducer).compose(opened -> {
          producer = opened;
          consumer = KafkaReadStream.create(vertx, settings.consumer(), new StringDeserializer(), new ByteArrayDeserializer());
          return consumer.assign(Set.of(partition))
              .compose(assigned -> consumer.seekToBeginning(Set.of(partition)))
              .compose(fromTheStart -> {
                poll();
                return reached(end);
              })
              .onSuccess(caughtUp -> LOG.info("Kafka topic {} at {} replayed: {} records up to position {} in {} ms",
                  settings.topic(), settings.bootstrapServers(), recordsDelivered, appliedPosition,
                  (System.nanoTime() - started) / 1_000_000));
        }))
        .recover(failure -> close().transform(closed -> Future.failedFuture(failure)));
  }

  @Override
  @SuppressWarnings("FutureReturnValueIgnored") // the send's callback reports its outcome
  public Future<Long> append(String key, byte[] payload) {
    if (producer == null || closed) {
      return Future.failedFuture(new LogUnavailableException("Kafka topic " + settings.topic() + " is not open", null));
    }
    if (refusal != null) {
      return Future.failedFuture(new LogUnavailableException(refusal, null));
    }
    ProducerRecord<String, byte[]> record = new ProducerRecord<>(settings.topic(), 0, key, payload,
        List.<Header>of(new RecordHeader(FormatVersion.KAFKA_HEADER, FormatVersion.CURRENT_BYTES)));
    Promise<Long> acknowledged = Promise.promise();
    producer.send(record, (metadata, failure) -> context.runOnContext(ignored ->
        acknowledged(metadata, failure, key, payload, acknowledged)));
    return acknowledged.future();
  }

  private void acknowledged(RecordMetadata metadata, Exception failure, String key, byte[] payload,
                            Promise<Long> acknowledged) {
    if (failure == null) {
      if (!writable) {
        writable = true;
        LOG.info("Kafka acknowledges writes to {} again", settings.topic());
      }
      long position = metadata.offset() + 1;
      // A task of its own: the writer registers what it waits for when its append completes, and the record must
      // not be applied before that.
      context.runOnContext(ignored -> applyIfNext(position, key, payload));
      acknowledged.complete(position);
      return;
    }
    if (failure instanceof RecordTooLargeException) {
      acknowledged.fail(new LogRecordTooLargeException("the write is larger than Kafka topic " + settings.topic()
          + " takes (at most " + settings.maxRecordBytes() + " bytes, kafka.maxRecordBytes, and the topic's own"
          + " max.message.bytes): " + failure.getMessage(), failure));
      return;
    }
    String reason = failure instanceof BufferExhaustedException
        ? "Kafka has not taken the writes already waiting for it (" + settings.producerBufferBytes()
            + " bytes, the most this replica holds for the topic)"
        : "Kafka did not acknowledge the write: " + failure.getMessage();
    if (writable) {
      writable = false;
      LOG.warn("Writes to Kafka topic {} fail with 503 until Kafka acknowledges them again, reads serve what this"
          + " replica has: {}", settings.topic(), reason);
    }
    acknowledged.fail(new LogUnavailableException(reason, failure));
  }

  /**
   * The producer, sent to straight from the event loop: its sends never wait ({@code max.block.ms} 0; a full buffer
   * fails the append instead) and the topic's metadata, which a send would otherwise wait for, is loaded here and
   * kept. Runs on a worker.
   */
  private KafkaProducer<String, byte[]> openProducer() throws InterruptedException {
    KafkaProducer<String, byte[]> opened = new KafkaProducer<>(settings.producer(), new StringSerializer(),
        new ByteArraySerializer());
    long deadline = System.nanoTime() + settings.setupTimeoutMillis() * 1_000_000;
    while (true) {
      try {
        opened.partitionsFor(settings.topic());
        return opened;
      } catch (TimeoutException notYet) {
        // Asking started a metadata request; it is answered in a few milliseconds when Kafka is up.
        if (System.nanoTime() > deadline) {
          opened.close(Duration.ZERO);
          throw new LogUnavailableException("Kafka did not describe topic " + settings.topic() + " within "
              + settings.setupTimeoutMillis() + " ms", notYet);
        }
        Thread.sleep(METADATA_RETRY_MILLIS);
      }
    }
  }

  @Override
  public Future<Long> remove(String key, byte[] deletion) {
    return append(key, null);
  }

  @Override
  public String cannotWrite() {
    return refusal;
  }

  @Override
  public Future<Void> catchUp() {
    if (refusal != null) {
      return Future.failedFuture(new LogUnavailableException(refusal, null));
    }
    Promise<Void> caughtUp = Promise.promise();
    long timer = vertx.setTimer(settings.catchUpTimeoutMillis(), fired -> caughtUp.tryFail(new LogUnavailableException(
        "Kafka topic " + settings.topic() + " was not caught up with within " + settings.catchUpTimeoutMillis() + " ms",
        null)));
    endOffset().compose(this::reached).onComplete(done -> {
      vertx.cancelTimer(timer);
      if (done.succeeded()) {
        caughtUp.tryComplete();
      } else {
        caughtUp.tryFail(done.cause());
      }
    });
    return caughtUp.future();
  }

  /** The topic compacts itself. */
  @Override
  public <T> Future<Void> compact(long upTo, List<T> entries, Function<T, LogRecord> toRecord) {
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> close() {
    closed = true;
    List<Future<?>> closing = new ArrayList<>();
    if (consumer != null) {
      closing.add(consumer.close());
    }
    if (producer != null) {
      closing.add(vertx.executeBlocking(() -> {
        producer.close(Duration.ofMillis(settings.deliveryTimeoutMillis()));
        return null;
      }));
    }
    if (admin != null) {
      closing.add(vertx.executeBlocking(() -> {
        admin.close(Duration.ofMillis(settings.requestTimeoutMillis()));
        return null;
      }));
    }
    return Future.join(closing).mapEmpty();
  }

  // ---- reading (on the opener's context) ----

  /**
   * Polls and delivers, and again, until closed. After a poll that found nothing new, asks for the
   * consumer's position too: it may lie beyond the last record (compaction removes records, even the
   * last one when it is a tombstone), and a catch-up waits for the position, not for a record.
   */
  private void poll() {
    if (closed || refusal != null) {
      return;
    }
    consumer.poll(POLL)
        .compose(records -> {
          if (records.isEmpty()) {
            return consumer.position(partition).map(position -> new Read(position, false));
          }
          boolean onlyOwn = deliver(records) == 0;
          return Future.succeededFuture(new Read(appliedPosition, onlyOwn));
        })
        .onComplete(done -> {
          if (closed) {
            return;
          }
          if (done.succeeded()) {
            passed(done.result().position());
            if (done.result().onlyOwnRecords()) {
              vertx.setTimer(OWN_RECORDS_READ_PAUSE_MILLIS, paused -> poll());
            } else {
              poll();
            }
          } else {
            if (readable) {
              readable = false;
              LOG.warn("Reading Kafka topic {} failed: {}; serving what this replica has, and retrying",
                  settings.topic(), done.cause().getMessage());
            }
            vertx.setTimer(RETRY_MILLIS, again -> poll());
          }
        });
  }

  /** What one read got to: the consumer's position, and whether every record it brought had been applied already. */
  private record Read(long position, boolean onlyOwnRecords) {
  }

  /** @return how many of {@code records} were applied now, the others having been applied already */
  private int deliver(ConsumerRecords<String, byte[]> records) {
    int applied = 0;
    for (ConsumerRecord<String, byte[]> record : records) {
      long position = record.offset() + 1;
      if (position <= appliedPosition) {
        continue; // applied on its acknowledgement, or delivered already and the consumer went back (a reset)
      }
      int format = formatOf(record);
      if (format < 0 || format > FormatVersion.CURRENT) {
        refuse(position, format);
        return applied;
      }
      apply(position, record.key(), record.value());
      applied++;
    }
    return applied;
  }

  /** This replica's acknowledged record, applied now if every record before it is (see the class comment). */
  private void applyIfNext(long position, String key, byte[] payload) {
    if (position == appliedPosition + 1 && refusal == null && !closed) {
      apply(position, key, payload);
    }
  }

  /** The record at {@code position} (a tombstone when {@code value} is null), to the sink, as the next applied. */
  private void apply(long position, String key, byte[] value) {
    appliedPosition = position;
    recordsDelivered++;
    sink.apply(position, value == null ? sink.decodeTombstone(position, key) : sink.decode(position, key, value));
  }

  private static int formatOf(ConsumerRecord<String, byte[]> record) {
    Header header = record.headers().lastHeader(FormatVersion.KAFKA_HEADER);
    if (header == null || header.value() == null) {
      return FormatVersion.UNMARKED;
    }
    return FormatVersion.ofKafkaHeader(header.value());
  }

  /** Stops reading at a record of a newer format: nothing after it is applied here, and every waiter learns why. */
  private void refuse(long position, int format) {
    refusal = FormatVersion.newer("The record at position " + position + " of Kafka topic " + settings.topic(), format);
    LOG.error("{}. This replica stops reading the topic, takes no writes and is not ready", refusal);
    LogUnavailableException stopped = new LogUnavailableException(refusal, null);
    waiting.values().forEach(promises -> promises.forEach(promise -> promise.tryFail(stopped)));
    waiting.clear();
  }

  private void passed(long offset) {
    if (!readable) {
      readable = true;
      LOG.info("Reading Kafka topic {} again", settings.topic());
    }
    delivered = Math.max(delivered, offset);
    Map<Long, List<Promise<Void>>> done = waiting.headMap(delivered, true);
    done.values().forEach(promises -> promises.forEach(Promise::tryComplete));
    done.clear();
  }

  /** Completes once every record below {@code offset} has been delivered. */
  private Future<Void> reached(long offset) {
    if (refusal != null) {
      return Future.failedFuture(new LogUnavailableException(refusal, null));
    }
    if (offset <= delivered) {
      return Future.succeededFuture();
    }
    Promise<Void> promise = Promise.promise();
    waiting.computeIfAbsent(offset, ignored -> new ArrayList<>(1)).add(promise);
    return promise.future();
  }

  /**
   * The offset after the last durable record. Callers that arrive while a request is out wait for the
   * next one, which starts after their call, so it covers everything acknowledged before it.
   */
  private Future<Long> endOffset() {
    Promise<Long> promise = Promise.promise();
    wantEnd.add(promise);
    if (!endRequested) {
      requestEnd();
    }
    return promise.future();
  }

  private void requestEnd() {
    List<Promise<Long>> answering = List.copyOf(wantEnd);
    wantEnd.clear();
    endRequested = true;
    ListOffsetsOptions options = new ListOffsetsOptions().timeoutMs((int) settings.setupTimeoutMillis());
    on(admin.listOffsets(Map.of(partition, OffsetSpec.latest()), options).partitionResult(partition))
        .onComplete(done -> {
          endRequested = false;
          for (Promise<Long> promise : answering) {
            if (done.succeeded()) {
              promise.complete(done.result().offset());
            } else {
              promise.fail(done.cause());
            }
          }
          if (!wantEnd.isEmpty()) {
            requestEnd();
          }
        });
  }

  /** A Kafka future as a Vert.x one, completed on this log's context. */
  @SuppressWarnings("FutureReturnValueIgnored") // the continuation completes the promise; what whenComplete returns adds nothing
  private <T> Future<T> on(KafkaFuture<T> future) {
    Promise<T> promise = Promise.promise();
    future.whenComplete((result, failure) -> context.runOnContext(ignored -> {
      if (failure == null) {
        promise.complete(result);
      } else {
        promise.fail(failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
      }
    }));
    return promise.future();
  }
}
