package ark.broker.memory;

import ark.broker.log.StoreMeters;
import ark.broker.testing.RetainedHeap;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** What conversation memory filled to its bound holds on the heap, per byte it counts against the bound. */
class ConversationsHeapTest {
  private static final long BOUND = 32 << 20;

  @ParameterizedTest
  @ValueSource(ints = {1 << 20, 10})
  void theHeapHeldIsWhatTheBoundCounts(int contentChars) {
    long[] messages = new long[1];
    double perByte = RetainedHeap.perCountedByte(() -> {
      Conversations held = new Conversations(new MemorySettings(BOUND, Long.MAX_VALUE, 1000, 1000, 1000),
          new StoreMeters(new SimpleMeterRegistry(), "memory", "", unused -> 0, unused -> 0));
      String content = "x".repeat(contentChars);
      // Twice what the bound holds: it is full, and has dropped its oldest.
      for (long i = 1; i <= 2 * BOUND / (contentChars + 100); i++) {
        byte[] message = new JsonObject().put("role", "user").put("content", content).encode()
            .getBytes(StandardCharsets.UTF_8);
        held.apply(i, new MemoryRecord.Appended("c-" + i, "q-" + i, 0, Long.MAX_VALUE, message), 0);
      }
      messages[0] = held.size();
      return held;
    }, Conversations::bytes);
    System.out.println("memory, " + contentChars + " chars a message: " + perByte + " heap bytes per counted byte, "
        + messages[0] + " messages");
    assertThat(perByte).isLessThan(1.1);
  }
}
