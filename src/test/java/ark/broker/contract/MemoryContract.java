package ark.broker.contract;

import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static ark.broker.contract.Checks.assertError;
import static ark.broker.contract.Checks.assertSuccess;
import static ark.broker.contract.Checks.chat;
import static ark.broker.contract.Checks.items;
import static ark.broker.contract.Checks.messages;
import static ark.broker.contract.Checks.unique;
import static org.assertj.core.api.Assertions.assertThat;

/** Conversation memory: {@code /messages}, {@code /conversations}, {@code /memory-status} and their DELETE routes. */
public interface MemoryContract extends ContractCheck {

  /** Posts {@code count} user messages "m0".."m(count-1)" to one conversation and query; checks the empty 200. */
  private void post(String conversation, String query, int count) throws Exception {
    JsonObject[] posted = new JsonObject[count];
    for (int i = 0; i < count; i++) {
      posted[i] = chat("user", "m" + i);
    }
    Response response = ark().postJson("/messages", messages(conversation, query, posted));
    assertThat(response.status()).as("POST /messages: %s", response).isEqualTo(200);
    assertThat(response.body()).isEmpty();
  }

  @Test
  default void aNewConversationIs201WithAFreshId() throws Exception {
    // The Go executor posts it without a body, with Content-Type: application/json.
    Response first = ark().post("/conversations", "application/json", new byte[0]);
    Response second = ark().post("/conversations", "application/json", new byte[0]);
    assertThat(first.status()).isEqualTo(201);
    assertThat(first.json().fieldNames()).containsExactly("conversation_id");
    // Upstream's ids are UUIDv4s; the executor only stores and sends them back.
    assertThat(first.json().getString("conversation_id")).isNotBlank()
        .isNotEqualTo(second.json().getString("conversation_id"));
  }

  @Test
  default void postedMessagesReadBackAsPostedWithAscendingSequences() throws Exception {
    String conversation = unique("conv");
    JsonObject toolCall = new JsonObject().put("role", "assistant").putNull("content").put("tool_calls",
        new JsonArray().add(new JsonObject().put("id", "call_1").put("type", "function")
            .put("function", new JsonObject().put("name", "lookup").put("arguments", "{\"q\":\"ü ☃\"}"))));
    Response posted = ark().postJson("/messages", messages(conversation, "q-1", chat("user", "hi"), toolCall));
    assertThat(posted.status()).isEqualTo(200);
    assertThat(posted.body()).isEmpty();

    Response read = ark().get("/messages?conversation_id=" + conversation);
    List<JsonObject> items = items(read);
    assertThat(items).hasSize(2);
    assertThat(read.json().getInteger("total")).isEqualTo(2);
    assertThat(read.json().getBoolean("hasMore")).isFalse();
    assertThat(read.json().containsKey("nextCursor")).isFalse();
    for (JsonObject item : items) {
      assertThat(item.fieldNames()).containsExactlyInAnyOrder("timestamp", "conversation_id", "query_id", "message",
          "sequence");
      assertThat(item.getString("timestamp")).matches(Checks.ISO_INSTANT);
      assertThat(item.getString("conversation_id")).isEqualTo(conversation);
      assertThat(item.getString("query_id")).isEqualTo("q-1");
    }
    assertThat(items.get(0).getJsonObject("message")).isEqualTo(chat("user", "hi"));
    assertThat(items.get(1).getJsonObject("message")).isEqualTo(toolCall);
    assertThat(items.get(1).getLong("sequence")).isGreaterThan(items.get(0).getLong("sequence"));
  }

  @Test
  default void anEmptyMessageListIsAcceptedAndStoresNothing() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 0);
    assertThat(items(ark().get("/messages?conversation_id=" + conversation))).isEmpty();
  }

  @Test
  default void ttlSecondsIsAcceptedWhenPositive() throws Exception {
    String conversation = unique("conv");
    String body = new JsonObject(messages(conversation, "q-1", chat("user", "again"))).put("ttl_seconds", 60).encode();
    assertThat(ark().postJson("/messages", body).status()).isEqualTo(200);
    assertThat(items(ark().get("/messages?conversation_id=" + conversation))).hasSize(1);
    String zero = new JsonObject(messages(conversation, "q-1")).put("ttl_seconds", 0).encode();
    assertThat(assertError(ark().postJson("/messages", zero), 400, "VALIDATION_ERROR")).contains("ttl_seconds");
  }

  @Test
  default void messagesFilterByConversationAndQuery() throws Exception {
    String conversation = unique("conv");
    String other = unique("conv");
    String query = unique("q");
    post(conversation, "q-a", 2);
    post(conversation, query, 1);
    post(other, query, 1);
    assertThat(items(ark().get("/messages?conversation_id=" + conversation))).hasSize(3);
    List<JsonObject> byQuery = items(ark().get("/messages?query_id=" + query));
    assertThat(byQuery).extracting(item -> item.getString("conversation_id")).containsExactly(conversation, other);
    assertThat(items(ark().get("/messages?conversation_id=" + conversation + "&query_id=" + query))).hasSize(1);
  }

  @Test
  default void pagesFollowAnExclusiveSequenceCursor() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 3);
    Response first = ark().get("/messages?conversation_id=" + conversation + "&limit=2");
    List<JsonObject> firstItems = items(first);
    assertThat(firstItems).hasSize(2);
    assertThat(first.json().getInteger("total")).isEqualTo(3);
    assertThat(first.json().getBoolean("hasMore")).isTrue();
    assertThat(first.json().getLong("nextCursor")).isEqualTo(firstItems.get(1).getLong("sequence"));

    Response second = ark().get("/messages?conversation_id=" + conversation + "&limit=2&cursor="
        + first.json().getLong("nextCursor"));
    assertThat(items(second)).extracting(item -> item.getJsonObject("message").getString("content"))
        .containsExactly("m2");
    assertThat(second.json().getBoolean("hasMore")).isFalse();
    assertThat(second.json().containsKey("nextCursor")).isFalse();
    assertThat(items(ark().get("/messages?conversation_id=" + conversation + "&limit=1000"))).hasSize(3);
  }

  @Test
  default void paginationParametersAreChecked() throws Exception {
    assertThat(assertError(ark().get("/messages?limit=0"), 400, "PAGINATION_ERROR"))
        .isEqualTo("limit must be a positive integer");
    assertThat(assertError(ark().get("/messages?limit=1001"), 400, "PAGINATION_ERROR"))
        .isEqualTo("limit cannot exceed 1000");
    assertError(ark().get("/messages?cursor=-1"), 400, "VALIDATION_ERROR");
  }

  @BeyondUpstream("a read without limit returns the first 100 (hasMore, a numeric nextCursor that 0.1.67 executors"
      + " cannot decode: they run without history, Ark #2652)")
  default void aConversationReadWithoutLimitReturnsTheWholeConversation() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 150);
    Response read = ark().get("/messages?conversation_id=" + conversation);
    assertThat(items(read)).hasSize(150);
    assertThat(read.json().getBoolean("hasMore")).isFalse();
  }

  @Test
  default void memoryStatusCountsMessagesAndQueriesPerConversation() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 2);
    post(conversation, "q-2", 1);
    JsonObject status = ark().get("/memory-status").json();
    assertThat(status.getJsonObject("conversations").getJsonObject(conversation))
        .isEqualTo(new JsonObject().put("message_count", 3).put("query_count", 2));
    assertThat(status.getInteger("total_conversations")).isPositive();
    assertThat(status.getInteger("total_messages")).isGreaterThanOrEqualTo(3);
  }

  @Test
  default void conversationsListEachIdOnce() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 2);
    post(conversation, "q-2", 1);
    JsonArray ids = ark().get("/conversations").json().getJsonArray("conversations");
    assertThat(ids.stream().filter(conversation::equals)).hasSize(1);
    assertThat(ids).allMatch(String.class::isInstance);
  }

  @Test
  default void aConversationReadsByIdOr404() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 2);
    JsonObject read = ark().get("/conversations/" + conversation).json();
    assertThat(read.getString("conversation_id")).isEqualTo(conversation);
    assertThat(read.getJsonArray("messages")).hasSize(2);
    assertThat(read.getJsonArray("messages").getJsonObject(0).getString("query_id")).isEqualTo("q-1");
    assertThat(assertError(ark().get("/conversations/" + unique("none")), 404, "NOT_FOUND"))
        .isEqualTo("Conversation not found");
  }

  @Test
  default void deleteRoutesRemoveWhatTheyName() throws Exception {
    String conversation = unique("conv");
    String kept = unique("q");
    String dropped = unique("q");
    String finalized = unique("q");
    post(conversation, kept, 1);
    post(conversation, dropped, 1);
    post(conversation, finalized, 1);

    assertSuccess(ark().delete("/conversations/" + conversation + "/queries/" + dropped + "/messages"),
        "Query " + dropped + " messages deleted from conversation " + conversation);
    // The controller's finalizer, for a deleted Query.
    assertSuccess(ark().delete("/queries/" + finalized + "/messages"), "Query " + finalized + " messages deleted");
    assertThat(items(ark().get("/messages?conversation_id=" + conversation)))
        .extracting(item -> item.getString("query_id")).containsExactly(kept);

    assertSuccess(ark().delete("/conversations/" + conversation), "Conversation " + conversation + " deleted");
    assertThat(ark().get("/conversations/" + conversation).status()).isEqualTo(404);
    String absent = unique("absent");
    assertSuccess(ark().delete("/conversations/" + absent), "Conversation " + absent + " deleted");
  }

  @Test
  default void purgesAnswerAndEmptyTheMemory() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 1);
    assertSuccess(ark().delete("/messages"), "Memory purged");
    assertThat(items(ark().get("/messages?conversation_id=" + conversation))).isEmpty();
    post(conversation, "q-1", 1);
    assertSuccess(ark().delete("/conversations"), "All conversations deleted");
    assertThat(ark().get("/conversations/" + conversation).status()).isEqualTo(404);
  }

  @BeyondUpstream("a purge resets the in-memory sequence to 1: cursors clients hold skip the new messages")
  default void cursorsKeepGrowingAcrossAPurge() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 3);
    long before = items(ark().get("/messages?conversation_id=" + conversation)).get(2).getLong("sequence");
    assertSuccess(ark().delete("/messages"), "Memory purged");
    post(conversation, "q-1", 1);
    assertThat(items(ark().get("/messages?conversation_id=" + conversation)).get(0).getLong("sequence"))
        .isGreaterThan(before);
  }

  @Test
  default void theWatchSendsEachNewMessageOfItsConversationAsOneDataLine() throws Exception {
    String conversation = unique("conv");
    try (EventStreamLines watch = ark().watch("/messages?watch=true&conversation_id=" + conversation)) {
      assertThat(watch.nextLine(java.time.Duration.ofSeconds(5))).isEqualTo(": connected");
      post(unique("other"), "q-0", 1);
      post(conversation, "q-1", 2);
      JsonObject first = watch.nextJson();
      JsonObject second = watch.nextJson();
      assertThat(first.fieldNames()).containsExactlyInAnyOrder("timestamp", "conversation_id", "query_id", "message",
          "sequence");
      assertThat(first.getString("conversation_id")).isEqualTo(conversation);
      assertThat(first.getJsonObject("message")).isEqualTo(chat("user", "m0"));
      assertThat(second.getJsonObject("message")).isEqualTo(chat("user", "m1"));
      assertThat(second.getLong("sequence")).isGreaterThan(first.getLong("sequence"));
    }
  }

  @Test
  default void theWatchResumesAfterACursorWithoutDuplicates() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 3);
    long cursor = items(ark().get("/messages?conversation_id=" + conversation)).get(0).getLong("sequence");
    try (EventStreamLines watch = ark().watch("/messages?watch=true&conversation_id=" + conversation
        + "&cursor=" + cursor)) {
      post(conversation, "q-1", 1);
      List<String> seen = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        seen.add(watch.nextJson().getJsonObject("message").getString("content"));
      }
      assertThat(seen).containsExactly("m1", "m2", "m0");
      assertThat(watch.dataWithin(java.time.Duration.ofMillis(300))).as("nothing more").isNull();
    }
  }

  @Test
  default void theMessageWatchSurvivesArkApisLineByLineRelay() throws Exception {
    String conversation = unique("conv");
    post(conversation, "q-1", 2);
    List<String> lines = new ArrayList<>();
    try (EventStreamLines watch = ark().watch("/messages?watch=true&cursor=0&conversation_id=" + conversation)) {
      while (lines.stream().filter(line -> line.startsWith("data:")).count() < 2) {
        String line = watch.nextLine(java.time.Duration.ofSeconds(10));
        assertThat(line).as("lines so far: %s", lines).isNotNull().isNotEqualTo(EventStreamLines.END);
        lines.add(line);
      }
    }
    List<String> relayed = ArkApiRelay.messages(ArkApiRelay.relay(lines));
    assertThat(relayed).hasSize(2);
    assertThat(relayed).extracting(data -> new JsonObject(data).getJsonObject("message").getString("content"))
        .containsExactly("m0", "m1");
  }
}
