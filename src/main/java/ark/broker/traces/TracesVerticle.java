package ark.broker.traces;

import ark.broker.access.ArkBrokerAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.ItemPage;
import ark.broker.bus.Messages.SpanAppended;
import ark.broker.bus.StoreFailure;
import ark.broker.bus.TraceStore;
import ark.broker.log.EventLog;
import ark.broker.log.LogBackedView;
import ark.broker.log.StoreMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.List;
import java.util.function.Supplier;

/**
 * OpenTelemetry spans: the only writer of the traces log, and the view of it ({@link TracesView}). The spans of one
 * export request are one record, acknowledged once durable and applied here; every replica applies the log alike,
 * so any replica serves any read (upstream keeps traces in the pod that received them), and a read catches up with
 * the log first. Spans leave by age and by bytes, and the log forgets them with its next snapshot.
 */
public final class TracesVerticle extends VerticleBase implements TraceStore {
  private static final Logger LOG = LoggerFactory.getLogger(TracesVerticle.class);
  /** How often what has aged out leaves, when nothing is written. */
  private static final long TRIM_MILLIS = 1000;

  private final EventLog log;
  private final TraceSettings settings;
  private final Clock clock;
  private final MeterRegistry meters;
  private TracesView view;
  private LogBackedView<TraceRecord, TraceRecord> traces;

  public TracesVerticle(EventLog log, TraceSettings settings, Clock clock, MeterRegistry meters) {
    this.log = log;
    this.settings = settings;
    this.clock = clock;
    this.meters = meters;
  }

  @Override
  public Future<?> start() {
    view = new TracesView(settings, new StoreMeters(meters, "traces", this, verticle -> verticle.view.size(),
        verticle -> verticle.view.bytes()));
    traces = new LogBackedView<>(vertx, log, "traces", TraceRecord.CODEC, record -> false,
        settings.snapshotEveryRecords(), settings.readBackTimeoutMillis(), meters);
    return traces.open(new LogBackedView.Updates<>() {
      @Override
      public TraceRecord apply(long position, TraceRecord record) {
        List<StoredSpan> kept = view.apply(position, record, clock.millis());
        if (traces.isLive()) {
          for (StoredSpan span : kept) {
            vertx.eventBus().publish(Addresses.SPANS_APPENDED, new SpanAppended(span.position(), span.traceId,
                span.sessionId, span.item));
          }
        }
        return record;
      }

      @Override
      public LogBackedView.Snapshot<TraceRecord> snapshot(long position) {
        return new LogBackedView.Snapshot<>(view.floor(), List.of());
      }
    }).map(replayed -> {
      Addresses.TRACE_STORE.serve(vertx.eventBus(), this);
      vertx.setPeriodic(TRIM_MILLIS, tick -> view.trim(clock.millis()));
      LOG.info("Traces ready: {} spans", view.size());
      return null;
    });
  }

  @Override
  public Future<?> stop() {
    return traces.close();
  }

  @Override
  public Future<Void> append(Actor actor, List<NewSpan> spans) {
    return ArkBrokerAccess.guarded(actor, () -> {
      if (spans.size() > settings.maxSpansPerRequest()) {
        throw new StoreFailure(StoreFailure.Reason.TOO_LARGE, "the request holds " + spans.size()
            + " spans; one request may carry at most " + settings.maxSpansPerRequest());
      }
      if (spans.isEmpty()) {
        return Future.succeededFuture();
      }
      TraceRecord.Spans record = new TraceRecord.Spans(clock.millis(), spans);
      // Keyed by the first span's trace: an exporter's batch mixes traces, and one partition orders them all anyway.
      return traces.append(spans.get(0).traceId(), record).mapEmpty();
    });
  }

  @Override
  public Future<ItemPage> traces(Actor actor, String sessionId, Long before, int limit) {
    return read(actor, () -> view.traces(sessionId, before, limit));
  }

  @Override
  public Future<ItemPage> spans(Actor actor, SpanFilter filter, long cursor, int limit) {
    return read(actor, () -> view.spans(filter, cursor, limit));
  }

  @Override
  public Future<Void> deleteAll(Actor actor) {
    return ArkBrokerAccess.guarded(actor, () -> traces.append("", new TraceRecord.Purged(clock.millis())).mapEmpty());
  }

  /** What another replica acknowledged a moment ago is read here too; what has aged out is not. */
  private <T> Future<T> read(Actor actor, Supplier<T> reading) {
    return ArkBrokerAccess.guarded(actor, () -> traces.catchUp().map(caughtUp -> {
      view.trim(clock.millis());
      return reading.get();
    }));
  }
}
