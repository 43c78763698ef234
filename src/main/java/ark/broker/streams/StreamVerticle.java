package ark.broker.streams;

import ark.broker.access.ArkBrokerAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.ItemPage;
import ark.broker.bus.Messages.StreamChunk;
import ark.broker.bus.Messages.StreamEnded;
import ark.broker.bus.StreamStore;
import ark.broker.log.EventLog;
import ark.broker.log.LogBackedView;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * LLM streams: the only writer of the streams log, and the view of it ({@link Streams}). A chunk is acknowledged
 * once durable and applied here, and published to readers as soon as it is, so readers on any replica get it while
 * its request still posts. Completions, ends and errors reach every replica the same way.
 */
public final class StreamVerticle extends VerticleBase implements StreamStore {
  private static final Logger LOG = LoggerFactory.getLogger(StreamVerticle.class);
  /** How often what has aged out leaves, and silent posting requests count as ended, when nothing is written. */
  private static final long TRIM_MILLIS = 1000;

  private final EventLog log;
  private final StreamSettings settings;
  private final Clock clock;
  private final MeterRegistry meters;
  private final Streams view;
  private LogBackedView<StreamRecord, StreamRecord> streams;

  public StreamVerticle(EventLog log, StreamSettings settings, Clock clock, MeterRegistry meters) {
    this.log = log;
    this.settings = settings;
    this.clock = clock;
    this.meters = meters;
    this.view = new Streams(settings);
  }

  @Override
  public Future<?> start() {
    streams = new LogBackedView<>(vertx, log, "streams", StreamRecord.CODEC, record -> false,
        settings.snapshotEveryRecords(), settings.readBackTimeoutMillis(), meters);
    Gauge.builder("ark_broker_stream_chunks", view, Streams::size)
        .description("Chunks of LLM streams kept").register(meters);
    Gauge.builder("ark_broker_stream_bytes", view, Streams::bytes)
        .description("Bytes of the chunks of LLM streams kept").register(meters);
    return streams.open(new LogBackedView.Updates<>() {
      @Override
      public StreamRecord apply(long position, StreamRecord record) {
        Streams.Applied applied = view.apply(position, record, clock.millis());
        if (streams.isLive()) {
          StoredChunk kept = applied.kept();
          if (kept != null) {
            vertx.eventBus().publish(Addresses.STREAM_CHUNKS,
                new StreamChunk(kept.position(), kept.queryId, kept.chunk, kept.error, kept.completion));
          }
          if (applied.ended()) {
            vertx.eventBus().publish(Addresses.STREAM_ENDED, new StreamEnded(position, record.queryId()));
          }
        }
        return record;
      }

      @Override
      public LogBackedView.Snapshot<StreamRecord> snapshot(long position) {
        return new LogBackedView.Snapshot<>(view.floor(), List.of());
      }
    }).map(replayed -> {
      Addresses.STREAM_STORE.serve(vertx.eventBus(), this);
      vertx.setPeriodic(TRIM_MILLIS, tick -> {
        long now = clock.millis();
        view.trim(now);
        view.endSilentPosters(now).forEach(query -> vertx.eventBus()
            .publish(Addresses.STREAM_ENDED, new StreamEnded(streams.position(), query)));
      });
      LOG.info("Streams ready: {} chunks kept", view.size());
      return null;
    });
  }

  @Override
  public Future<?> stop() {
    return streams.close();
  }

  @Override
  public Future<Void> open(Actor actor, String queryId, String producerId) {
    return write(actor, new StreamRecord.Opened(queryId, producerId, clock.millis())).mapEmpty();
  }

  @Override
  public Future<Void> append(Actor actor, String queryId, String producerId, List<byte[]> chunks) {
    return ArkBrokerAccess.guarded(actor, () -> {
      long now = clock.millis();
      List<Future<StreamRecord>> written = new ArrayList<>(chunks.size());
      for (byte[] chunk : chunks) {
        written.add(streams.append(queryId, new StreamRecord.Chunk(queryId, producerId, now, ChunkErrors.reportsFailure(chunk),
            chunk)));
      }
      return Future.all(written).mapEmpty();
    });
  }

  @Override
  public Future<Void> close(Actor actor, String queryId, String producerId) {
    return write(actor, new StreamRecord.Closed(queryId, producerId, clock.millis())).mapEmpty();
  }

  /** A stream this replica has not seen may have been posted to on another a moment ago: catch up first. */
  @Override
  public Future<Completion> complete(Actor actor, String queryId) {
    return ArkBrokerAccess.guarded(actor, () -> streams.catchUp().compose(caughtUp -> {
      Streams.QueryStream stream = view.stream(queryId);
      if (stream == null) {
        return Future.succeededFuture(Completion.NOT_FOUND);
      }
      if (stream.completed) {
        return Future.succeededFuture(Completion.ALREADY_COMPLETED);
      }
      return streams.append(queryId, new StreamRecord.Completed(queryId, clock.millis())).map(done -> Completion.COMPLETED);
    }));
  }

  @Override
  public Future<StreamState> read(Actor actor, String queryId, boolean fromBeginning) {
    return read(actor, () -> view.state(queryId, fromBeginning, streams.position()));
  }

  @Override
  public Future<ItemPage> firehose(Actor actor, long cursor, int limit) {
    return read(actor, () -> view.firehose(cursor, limit));
  }

  @Override
  public Future<Void> purge(Actor actor) {
    return write(actor, new StreamRecord.Purged(clock.millis()))
        .onSuccess(written -> LOG.info("Streams: every stream purged by {}", actor.principal().name())).mapEmpty();
  }

  private Future<StreamRecord> write(Actor actor, StreamRecord record) {
    return ArkBrokerAccess.guarded(actor, () -> streams.append(record.queryId(), record));
  }

  /** What another replica acknowledged a moment ago is read here too; what has aged out is not. */
  private <T> Future<T> read(Actor actor, Supplier<T> reading) {
    return ArkBrokerAccess.guarded(actor, () -> streams.afterCatchUp(() -> {
      view.trim(clock.millis());
      return reading.get();
    }));
  }
}
