package ark.broker.traces;

import ark.broker.bus.ItemPage;
import ark.broker.bus.TraceStore;
import ark.broker.bus.TraceStore.NewSpan;
import ark.broker.bus.TraceStore.SpanFilter;
import ark.broker.log.AgingRetainingStore;
import ark.broker.log.RetainingStore;
import ark.broker.log.RetentionCheck;
import ark.broker.log.RetentionModel;
import ark.broker.log.RetentionScenario;
import ark.broker.log.StoreMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonObject;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The traces store keeps what the plain model of retention keeps, whatever spans are exported, purged, aged out,
 * pushed out by bytes, snapshotted and replayed, on both replicas. On a failure jqwik prints the seed:
 * {@code @Property(seed = "...")} plays it again.
 */
class TracesViewRetentionTest {
  @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
  void tracesKeepWhatTheModelKeeps(@ForAll("scenarios") RetentionScenario scenario) {
    RetentionCheck.run(new Traces(), scenario);
  }

  @Provide
  Arbitrary<RetentionScenario> scenarios() {
    return RetentionScenario.any(false);
  }

  /** Keys are sessions, groups traces; each export carries one span, which lives the store's maximum age. */
  private static final class Traces implements AgingRetainingStore<TraceRecord, TracesView> {
    @Override
    public TracesView view(long maxBytes, long maxAgeMillis) {
      return new TracesView(new TraceSettings(maxBytes, maxAgeMillis, 100, 1000, 1000),
          new StoreMeters(new SimpleMeterRegistry(), "traces", "", unused -> 0, unused -> 0));
    }

    @Override
    public long bytes(TracesView view) {
      return view.bytes();
    }

    @Override
    public TraceRecord readBack(TraceRecord record) {
      return RetainingStore.throughCodec(TraceRecord.CODEC, record);
    }

    @Override
    public TraceRecord written(String label, String key, String group, int padding, long at, long expiresAt) {
      byte[] span = new JsonObject().put("label", label).put("name", "x".repeat(padding)).encode()
          .getBytes(StandardCharsets.UTF_8);
      return new TraceRecord.Spans(at, List.of(new NewSpan(group, key, span)));
    }

    @Override
    public RetentionModel.Item kept(long position, TraceRecord written) {
      TraceRecord.Spans spans = (TraceRecord.Spans) written;
      NewSpan span = spans.spans().get(0);
      byte[] item = new StoredSpan(TraceStore.sequence(position, 0), spans.at(), span).item;
      return new RetentionModel.Item(position, label(item), span.sessionId(), span.traceId(), item.length,
          spans.at(), Long.MAX_VALUE);
    }

    @Override
    public TraceRecord purged(long at) {
      return new TraceRecord.Purged(at);
    }

    @Override
    public Shown shown(TracesView view, String key) {
      return shown(view.spans(new SpanFilter(null, key), 0, 0));
    }

    @Override
    public Shown shownOfGroup(TracesView view, String group) {
      return shown(view.spans(new SpanFilter(group, null), 0, 0));
    }

    private static Shown shown(ItemPage page) {
      return new Shown(page.items().stream().map(Traces::label).toList(), page.total());
    }

    private static String label(byte[] item) {
      return new JsonObject(new String(item, StandardCharsets.UTF_8)).getString("label");
    }
  }
}
