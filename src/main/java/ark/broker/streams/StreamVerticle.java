package ark.broker.streams;

import ark.broker.access.ArkBrokerAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.ItemPage;
import ark.broker.bus.Messages.StreamChunk;
import ark.broker.bus.Messages.StreamEnded;
import ark.broker.bus.StreamStore;
import ark.broker.log.AgingStore;
import ark.broker.log.EventLog;
import ark.broker.log.StoreMeters;
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
 * LLM streams: the only writer of the streams log, and the view of it ({@link Streams}). A chunk is published to
 * readers once applied here, which on the embedded log is once written, before its fsync (the log is visible before
 * sync), and acknowledged once durable; so readers on any replica get it while its request still posts.
 * Completions, ends and errors reach every replica the same way.
 */
public final class StreamVerticle extends VerticleBase implements StreamStore {
  private static final Logger LOG = LoggerFactory.getLogger(StreamVerticle.class);
  /** How often requests silent for too long count as ended. */
  private static final long SILENT_POSTERS_MILLIS = 1000;

  private final EventLog log;
  private final StreamSettings settings;
  private final Clock clock;
  private final MeterRegistry meters;
  private Streams view;
  private AgingStore<StreamRecord, Streams.Applied> streams;
  private FirstChunkWaits firstChunks;

  public StreamVerticle(EventLog log, StreamSettings settings, Clock clock, MeterRegistry meters) {
    this.log = log;
    this.settings = settings;
    this.clock = clock;
    this.meters = meters;
  }

  @Override
  public Future<?> start() {
    view = new Streams(settings, new StoreMeters(meters, "streams", this, verticle -> verticle.view.size(),
        verticle -> verticle.view.bytes()));
    streams = new AgingStore<>(vertx, log, "streams", StreamRecord.CODEC, settings.snapshotEveryRecords(),
        settings.readBackTimeoutMillis(), clock, meters, view);
    firstChunks = new FirstChunkWaits(vertx, settings.completeWaitMillis());
    return streams.open(applied -> {
      StoredChunk kept = applied.kept();
      if (kept != null) {
        vertx.eventBus().publish(Addresses.STREAM_CHUNKS,
            new StreamChunk(kept.position(), kept.queryId, kept.chunk, kept.error, kept.completion));
        firstChunks.applied(kept.queryId);
      }
      if (applied.ended()) {
        vertx.eventBus().publish(Addresses.STREAM_ENDED, new StreamEnded(applied.position(), applied.endedQuery()));
      }
    }).map(replayed -> {
      Addresses.STREAM_STORE.serve(vertx.eventBus(), this);
      vertx.setPeriodic(SILENT_POSTERS_MILLIS, tick -> view.endSilentPosters(clock.millis()).forEach(query ->
          vertx.eventBus().publish(Addresses.STREAM_ENDED, new StreamEnded(streams.position(), query))));
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
      List<Future<Long>> written = new ArrayList<>(chunks.size());
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
    return ArkBrokerAccess.guarded(actor, () -> streams.catchUp().compose(caughtUp -> firstChunk(queryId)).compose(waited -> {
      if (!view.hasChunks(queryId)) {
        return Future.succeededFuture(Completion.NOT_FOUND);
      }
      if (view.stream(queryId).completed) {
        return Future.succeededFuture(Completion.ALREADY_COMPLETED);
      }
      return streams.append(queryId, new StreamRecord.Completed(queryId, clock.millis())).map(done -> Completion.COMPLETED);
    }));
  }

  /**
   * At once if the stream has a chunk; else once its first chunk is applied here, or the configured wait is over and
   * this replica has caught up with the log again: the post a completion ends may still be on its way.
   */
  private Future<Void> firstChunk(String queryId) {
    if (view.hasChunks(queryId) || settings.completeWaitMillis() == 0) {
      return Future.succeededFuture();
    }
    return firstChunks.await(queryId).compose(waited -> streams.catchUp());
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

  private Future<Long> write(Actor actor, StreamRecord record) {
    return ArkBrokerAccess.guarded(actor, () -> streams.append(record.queryId(), record));
  }

  /** What another replica acknowledged a moment ago is read here too; what has aged out is not. */
  private <T> Future<T> read(Actor actor, Supplier<T> reading) {
    return ArkBrokerAccess.guarded(actor, () -> streams.read(reading));
  }
}
