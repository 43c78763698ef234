package ark.broker.traces;

import ark.broker.access.ArkBrokerAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.ItemPage;
import ark.broker.bus.Messages.SpanAppended;
import ark.broker.bus.StoreFailure;
import ark.broker.bus.TraceStore;
import ark.broker.log.AgingStore;
import ark.broker.log.EventLog;
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

  private final EventLog log;
  private final TraceSettings settings;
  private final Clock clock;
  private final MeterRegistry meters;
  private TracesView view;
  private AgingStore<TraceRecord, List<StoredSpan>> traces;

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
    traces = new AgingStore<>(vertx, log, "traces", TraceRecord.CODEC, settings.snapshotEveryRecords(),
        settings.readBackTimeoutMillis(), clock, meters, view);
    return traces.open(kept -> kept.forEach(span -> vertx.eventBus().publish(Addresses.SPANS_APPENDED,
        new SpanAppended(span.position(), span.traceId, span.sessionId, span.item)))).map(replayed -> {
          Addresses.TRACE_STORE.serve(vertx.eventBus(), this);
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
    return ArkBrokerAccess.guarded(actor, () -> traces.read(reading));
  }
}
