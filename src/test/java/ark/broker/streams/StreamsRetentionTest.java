package ark.broker.streams;

import ark.broker.bus.StreamStore.StreamState;
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
 * The streams keep what the plain model of retention keeps, whatever chunks are posted, purged, aged out, pushed out
 * by bytes, snapshotted and replayed, on both replicas. On a failure jqwik prints the seed:
 * {@code @Property(seed = "...")} plays it again.
 */
class StreamsRetentionTest {
  @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
  void streamsKeepWhatTheModelKeeps(@ForAll("scenarios") RetentionScenario scenario) {
    RetentionCheck.run(new StreamsStore(), scenario);
  }

  @Provide
  Arbitrary<RetentionScenario> scenarios() {
    return RetentionScenario.any(false);
  }

  /** Keys are Queries; a chunk lives the store's maximum age, whatever its writer asks. */
  private static final class StreamsStore implements AgingRetainingStore<StreamRecord, Streams> {
    private long maxAgeMillis;

    @Override
    public Streams view(long maxBytes, long maxAgeMillis) {
      this.maxAgeMillis = maxAgeMillis;
      return new Streams(new StreamSettings(maxBytes, maxAgeMillis, 1000, 1000, 1000, 0),
          new StoreMeters(new SimpleMeterRegistry(), "streams", "", unused -> 0, unused -> 0));
    }

    @Override
    public long bytes(Streams view) {
      return view.bytes();
    }

    @Override
    public StreamRecord readBack(StreamRecord record) {
      return RetainingStore.throughCodec(StreamRecord.CODEC, record);
    }

    @Override
    public StreamRecord written(String label, String key, String group, int padding, long at, long expiresAt) {
      byte[] chunk = new JsonObject().put("label", label).put("content", "x".repeat(padding)).encode()
          .getBytes(StandardCharsets.UTF_8);
      return new StreamRecord.Chunk(key, null, at, false, chunk);
    }

    @Override
    public RetentionModel.Item kept(long position, StreamRecord written) {
      StreamRecord.Chunk chunk = (StreamRecord.Chunk) written;
      return new RetentionModel.Item(position, label(chunk.chunk()), chunk.queryId(), null,
          chunk.chunk().length + chunk.queryId().length(), chunk.at(), chunk.at() + maxAgeMillis);
    }

    @Override
    public StreamRecord purged(long at) {
      return new StreamRecord.Purged(at);
    }

    @Override
    public Shown shown(Streams view, String key) {
      if (key == null) {
        List<String> firehose = view.firehose(0, Integer.MAX_VALUE).items().stream()
            .map(item -> new JsonObject(new String(item, StandardCharsets.UTF_8)).getJsonObject("data")
                .getJsonObject("chunk").getString("label")).toList();
        return new Shown(firehose, view.firehose(0, Integer.MAX_VALUE).total());
      }
      StreamState state = view.state(key, true, 0);
      List<String> chunks = state.chunks().stream().map(StreamsStore::label).toList();
      return new Shown(chunks, chunks.size());
    }

    private static String label(byte[] chunk) {
      return new JsonObject(new String(chunk, StandardCharsets.UTF_8)).getString("label");
    }
  }
}
