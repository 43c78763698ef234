package ark.broker.memory;

import ark.broker.bus.ItemPage;
import ark.broker.bus.MemoryStore.MessageFilter;
import ark.broker.log.StoreMeters;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the memory keeps, as every replica decides it from the memory log: the oldest messages leave first when the
 * bytes or the age allowed are passed (or a message's own {@code ttl_seconds}), and a reader paging with its cursor
 * meanwhile gets each message kept once, in order.
 */
class ConversationsTest {
  private static final long HOUR = 3_600_000;
  private static final MessageFilter CONVERSATION = new MessageFilter("c", null);
  private long position;

  private static Conversations keeping(long maxBytes, long maxAgeMillis) {
    return new Conversations(new MemorySettings(maxBytes, maxAgeMillis, 1000, 1000, 1000),
        new StoreMeters(new SimpleMeterRegistry(), "memory", "", unused -> 0, unused -> 0));
  }

  private void append(Conversations memory, String content, long at, long expiresAt) {
    byte[] message = new JsonObject().put("role", "user").put("content", content).encode()
        .getBytes(StandardCharsets.UTF_8);
    memory.apply(++position, new MemoryRecord.Appended("c", "q", at, expiresAt, message), at);
  }

  private static List<String> contents(ItemPage page) {
    return page.items().stream().map(item -> new JsonObject(new String(item, StandardCharsets.UTF_8))
        .getJsonObject("message").getString("content")).toList();
  }

  @Test
  void theOldestMessagesLeaveFirstWhenTheBytesAllowedArePassed() {
    Conversations probe = keeping(Long.MAX_VALUE, HOUR);
    append(probe, "m0", 0, Long.MAX_VALUE);
    long oneMessage = probe.bytes();
    Conversations memory = keeping(3 * oneMessage, HOUR);

    for (int i = 0; i < 5; i++) {
      append(memory, "m" + i, i, Long.MAX_VALUE);
    }

    ItemPage page = memory.messages(CONVERSATION, 0, 0);
    assertThat(contents(page)).containsExactly("m2", "m3", "m4");
    assertThat(page.total()).isEqualTo(3);
    assertThat(memory.bytes()).isLessThanOrEqualTo(3 * oneMessage);
  }

  @Test
  void messagesLeaveAtTheMaximumAgeOrEarlierAtTheirOwnExpiry() {
    Conversations memory = keeping(Long.MAX_VALUE, HOUR);
    append(memory, "old", 0, Long.MAX_VALUE);
    append(memory, "short-lived", 10, 20);
    append(memory, "young", HOUR / 2, Long.MAX_VALUE);

    memory.trim(30);
    assertThat(contents(memory.messages(CONVERSATION, 0, 0))).containsExactly("old", "young");

    memory.trim(HOUR + 1);
    assertThat(contents(memory.messages(CONVERSATION, 0, 0))).containsExactly("young");
  }

  @Test
  void aReaderPagingByCursorGetsEachKeptMessageOnceWhileOldOnesLeave() {
    Conversations memory = keeping(Long.MAX_VALUE, HOUR);
    for (int i = 0; i < 6; i++) {
      append(memory, "m" + i, i * 1000L, Long.MAX_VALUE);
    }

    ItemPage first = memory.messages(CONVERSATION, 0, 2);
    assertThat(contents(first)).containsExactly("m0", "m1");
    assertThat(first.hasMore()).isTrue();

    memory.trim(HOUR + 2500);
    ItemPage second = memory.messages(CONVERSATION, first.last(), 2);
    assertThat(contents(second)).as("m2 aged out between the pages").containsExactly("m3", "m4");
    ItemPage third = memory.messages(CONVERSATION, second.last(), 2);
    assertThat(contents(third)).containsExactly("m5");
    assertThat(third.hasMore()).isFalse();
  }

  @Test
  void deletingAQuerysMessagesKeepsTheRestOfTheConversationAndItsCursors() {
    Conversations memory = keeping(Long.MAX_VALUE, HOUR);
    append(memory, "m0", 0, Long.MAX_VALUE);
    memory.apply(++position, new MemoryRecord.Appended("c", "other", 1, Long.MAX_VALUE,
        "{\"role\":\"user\",\"content\":\"other\"}".getBytes(StandardCharsets.UTF_8)), 1);
    append(memory, "m2", 2, Long.MAX_VALUE);

    memory.apply(++position, new MemoryRecord.QueryDeleted("c", "q", 3), 3);

    ItemPage left = memory.messages(CONVERSATION, 0, 0);
    assertThat(contents(left)).containsExactly("other");
    assertThat(left.total()).isEqualTo(1);
    assertThat(memory.messages(new MessageFilter("c", "q"), 0, 0).items()).isEmpty();
  }
}
