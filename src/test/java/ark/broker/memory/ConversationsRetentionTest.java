package ark.broker.memory;

import ark.broker.bus.ItemPage;
import ark.broker.bus.MemoryStore.MessageFilter;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conversation memory keeps what the plain model of retention keeps, whatever is written, deleted by Query, purged,
 * aged out, pushed out by bytes, snapshotted and replayed, on both replicas. On a failure jqwik prints the seed:
 * {@code @Property(seed = "...")} plays it again.
 */
class ConversationsRetentionTest {
  @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
  void memoryKeepsWhatTheModelKeeps(@ForAll("scenarios") RetentionScenario scenario) {
    RetentionCheck.run(new Memory(), scenario);
  }

  @Provide
  Arbitrary<RetentionScenario> scenarios() {
    return RetentionScenario.any(true);
  }

  /** Keys are Queries (what Ark's finalizer deletes by), groups conversations. */
  private static final class Memory implements AgingRetainingStore<MemoryRecord, Conversations> {
    @Override
    public Conversations view(long maxBytes, long maxAgeMillis) {
      return new Conversations(new MemorySettings(maxBytes, maxAgeMillis, 1000, 1000, 1000),
          new StoreMeters(new SimpleMeterRegistry(), "memory", "", unused -> 0, unused -> 0));
    }

    @Override
    public long bytes(Conversations view) {
      return view.bytes();
    }

    @Override
    public MemoryRecord readBack(MemoryRecord record) {
      return RetainingStore.throughCodec(MemoryRecord.CODEC, record);
    }

    @Override
    public MemoryRecord written(String label, String key, String group, int padding, long at, long expiresAt) {
      byte[] message = new JsonObject().put("label", label).put("content", "x".repeat(padding)).encode()
          .getBytes(StandardCharsets.UTF_8);
      return new MemoryRecord.Appended(group, key, at, expiresAt, message);
    }

    @Override
    public RetentionModel.Item kept(long position, MemoryRecord written) {
      MemoryRecord.Appended appended = (MemoryRecord.Appended) written;
      StoredMessage stored = StoredMessage.of(position, appended);
      return new RetentionModel.Item(position, label(stored.item), appended.queryId(), appended.conversationId(),
          stored.bytes(), appended.at(), appended.expiresAt());
    }

    @Override
    public MemoryRecord deleted(String key, long at) {
      return new MemoryRecord.QueryDeleted(null, key, at);
    }

    @Override
    public MemoryRecord purged(long at) {
      return new MemoryRecord.Purged(at);
    }

    @Override
    public Shown shown(Conversations view, String key) {
      return shown(view.messages(new MessageFilter(null, key), 0, 0));
    }

    /** A conversation's messages; it is listed while it has one. */
    @Override
    public Shown shownOfGroup(Conversations view, String group) {
      Shown shown = shown(view.messages(new MessageFilter(group, null), 0, 0));
      assertThat(view.conversations().contains(group)).as("conversation %s listed", group)
          .isEqualTo(!shown.items().isEmpty());
      return shown;
    }

    private static Shown shown(ItemPage page) {
      return new Shown(page.items().stream().map(Memory::label).toList(), page.total());
    }

    private static String label(byte[] item) {
      return new JsonObject(new String(item, StandardCharsets.UTF_8)).getJsonObject("message").getString("label");
    }
  }
}
