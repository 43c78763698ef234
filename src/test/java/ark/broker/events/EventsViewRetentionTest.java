package ark.broker.events;

import ark.broker.bus.EventStore.EventFilter;
import ark.broker.bus.ItemPage;
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

/**
 * The events store keeps what the plain model of retention keeps, whatever is posted, deleted by Query, purged, aged
 * out, pushed out by bytes, snapshotted and replayed, on both replicas. On a failure jqwik prints the seed:
 * {@code @Property(seed = "...")} plays it again.
 */
class EventsViewRetentionTest {
  @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
  void eventsKeepWhatTheModelKeeps(@ForAll("scenarios") RetentionScenario scenario) {
    RetentionCheck.run(new Events(), scenario);
  }

  @Provide
  Arbitrary<RetentionScenario> scenarios() {
    return RetentionScenario.any(true);
  }

  /** Keys are Queries (what {@code DELETE /events/{queryId}} names), groups sessions; no event reports activity. */
  private static final class Events implements AgingRetainingStore<EventRecord, EventsView> {
    @Override
    public EventsView view(long maxBytes, long maxAgeMillis) {
      return new EventsView(new EventSettings(maxBytes, maxAgeMillis, maxBytes, maxAgeMillis, 1000, 1000),
          new StoreMeters(new SimpleMeterRegistry(), "events", "", unused -> 0, unused -> 0));
    }

    @Override
    public long bytes(EventsView view) {
      return view.bytes();
    }

    @Override
    public EventRecord readBack(EventRecord record) {
      return RetainingStore.throughCodec(EventRecord.CODEC, record);
    }

    @Override
    public EventRecord written(String label, String key, String group, int padding, long at, long expiresAt) {
      byte[] event = new JsonObject().put("label", label).put("message", "x".repeat(padding)).encode()
          .getBytes(StandardCharsets.UTF_8);
      return new EventRecord.Posted(key, group, at, expiresAt, event, null);
    }

    @Override
    public RetentionModel.Item kept(long position, EventRecord written) {
      EventRecord.Posted posted = (EventRecord.Posted) written;
      byte[] item = StoredEvent.of(position, posted).item;
      return new RetentionModel.Item(position, label(item), posted.queryId(), posted.sessionId(), item.length,
          posted.at(), posted.expiresAt());
    }

    @Override
    public EventRecord deleted(String key, long at) {
      return new EventRecord.QueryDeleted(key, at);
    }

    @Override
    public EventRecord purged(long at) {
      return new EventRecord.Purged(at);
    }

    @Override
    public Shown shown(EventsView view, String key) {
      return shown(view.events(new EventFilter(key, null), 0, 0));
    }

    @Override
    public Shown shownOfGroup(EventsView view, String group) {
      return shown(view.events(new EventFilter(null, group), 0, 0));
    }

    private static Shown shown(ItemPage page) {
      return new Shown(page.items().stream().map(Events::label).toList(), page.total());
    }

    private static String label(byte[] item) {
      return new JsonObject(new String(item, StandardCharsets.UTF_8)).getString("label");
    }
  }
}
