package ark.broker;

import ark.broker.testing.CapturedLog;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Deletions of Ark's stores apply, however many items were dropped before: once more than 64 had been dropped in all
 * and the store emptied, every further delete or purge failed (answered 503 after 5 s, logged an ERROR, and was
 * skipped again at every restart). Each test starts a fresh broker, as the failures needed nothing else.
 */
class ArkStoresDeletionsTest {
  @TempDir
  Path dataDir;

  @Test
  void arksQueryFinalizerDeletesTheMessagesOfEveryQuery() throws Exception {
    try (CapturedLog log = CapturedLog.all(); TestBroker broker = TestBroker.start(dataDir)) {
      for (int query = 0; query < 100; query++) {
        assertThat(broker.post("/messages", messages("conversation-" + query % 10, "query-" + query, 2)).status())
            .isEqualTo(200);
      }

      for (int query = 0; query < 100; query++) {
        assertThat(broker.delete("/queries/query-" + query + "/messages").status()).as("query-%s", query)
            .isEqualTo(200);
      }

      JsonObject status = broker.get("/memory-status").json();
      assertThat(status.getInteger("total_messages")).isZero();
      assertThat(status.getInteger("total_conversations")).isZero();
      assertThat(broker.get("/conversations").body()).doesNotContain("conversation-");
      assertThat(errors(log)).isEmpty();
    }
  }

  @Test
  void theEventsOfEveryQueryAreDeletedOneQueryAfterTheOther() throws Exception {
    try (CapturedLog log = CapturedLog.all(); TestBroker broker = TestBroker.start(dataDir)) {
      for (int query = 0; query < 100; query++) {
        assertThat(broker.post("/events", event("uid-" + query, "session-" + query).encode()).status())
            .isEqualTo(201);
        assertThat(broker.delete("/events/uid-" + query).status()).as("uid-%s", query).isEqualTo(200);
      }

      assertThat(broker.get("/events").json().getInteger("total")).isZero();
      assertThat(errors(log)).isEmpty();
    }
  }

  @Test
  void theStreamsArePurgedAgainAfterAPurgeOfManyChunks() throws Exception {
    try (CapturedLog log = CapturedLog.all(); TestBroker broker = TestBroker.start(dataDir)) {
      assertThat(stream(broker, "qA", 60).status()).isEqualTo(200);
      assertThat(broker.delete("/stream").status()).isEqualTo(200);
      assertThat(stream(broker, "qB", 10).status()).isEqualTo(200);

      assertThat(broker.delete("/stream").status()).isEqualTo(200);

      assertThat(broker.get("/stream").json().getJsonArray("items")).isEmpty();
      assertThat(errors(log)).isEmpty();
    }
  }

  @Test
  void purgesOfEveryStoreApplyTwiceAndStillAfterARestart() throws Exception {
    try (CapturedLog log = CapturedLog.all()) {
      try (TestBroker broker = TestBroker.start(dataDir)) {
        for (int round = 0; round < 2; round++) {
          fill(broker, round);
          for (String store : List.of("/messages", "/events", "/stream", "/traces", "/sessions")) {
            assertThat(broker.delete(store).status()).as("DELETE %s, round %s", store, round).isEqualTo(200);
          }
          assertEmpty(broker);
        }
      }
      try (TestBroker restarted = TestBroker.start(dataDir)) {
        assertEmpty(restarted);
      }
      assertThat(errors(log)).isEmpty();
    }
  }

  /** 40 items in each store: fewer than a purge compacts at once, more than 64 in two rounds. */
  private static void fill(TestBroker broker, int round) throws Exception {
    assertThat(broker.post("/messages", messages("conversation-" + round, "query-" + round, 40)).status())
        .isEqualTo(200);
    for (int i = 0; i < 40; i++) {
      assertThat(broker.post("/events", event("uid-" + round + "-" + i, "session-" + round + "-" + i).encode())
          .status()).isEqualTo(201);
    }
    assertThat(stream(broker, "q-" + round, 40).status()).isEqualTo(200);
    JsonArray spans = new JsonArray(IntStream.range(0, 40).mapToObj(i -> (Object) new JsonObject()
        .put("traceId", "trace-" + round).put("spanId", "span-" + i).put("name", "query.execute")
        .put("startTimeUnixNano", "1").put("endTimeUnixNano", "2")).toList());
    assertThat(broker.post("/v1/traces", new JsonObject().put("resourceSpans", new JsonArray().add(new JsonObject()
        .put("scopeSpans", new JsonArray().add(new JsonObject().put("spans", spans))))).encode()).status())
        .isEqualTo(200);
  }

  private static void assertEmpty(TestBroker broker) throws Exception {
    JsonObject memory = broker.get("/memory-status").json();
    assertThat(memory.getInteger("total_messages")).as("messages").isZero();
    assertThat(memory.getInteger("total_conversations")).as("conversations").isZero();
    assertThat(broker.get("/events").json().getInteger("total")).as("events").isZero();
    assertThat(broker.get("/stream").json().getJsonArray("items")).as("chunks").isEmpty();
    assertThat(broker.get("/traces").json().getJsonArray("items")).as("traces").isEmpty();
    assertThat(broker.get("/sessions").json().getJsonObject("sessions")).as("sessions").isEmpty();
  }

  private static String messages(String conversation, String query, int count) {
    return new JsonObject().put("conversation_id", conversation).put("query_id", query)
        .put("messages", new JsonArray(IntStream.range(0, count).mapToObj(i -> (Object) new JsonObject()
            .put("role", "user").put("content", "message " + i)).toList())).encode();
  }

  /** A QueryExecutionStart as Ark's controller posts it. */
  private static JsonObject event(String queryUid, String session) {
    return new JsonObject().put("timestamp", "2026-12-01T00:00:00Z").put("eventType", "Normal")
        .put("reason", "QueryExecutionStart").put("message", "started")
        .put("data", new JsonObject().put("queryId", queryUid).put("queryName", "query-" + queryUid)
            .put("sessionId", session));
  }

  private static Response stream(TestBroker broker, String query, int chunks) throws Exception {
    String lines = IntStream.range(0, chunks).mapToObj(i -> new JsonObject().put("id", query)
        .put("choices", new JsonArray().add(new JsonObject().put("delta", new JsonObject().put("content", "t" + i))))
        .encode() + "\n").collect(Collectors.joining());
    return broker.send(HttpRequest.newBuilder(broker.base.resolve("/stream/" + query))
        .header("Content-Type", "application/x-ndjson").POST(HttpRequest.BodyPublishers.ofString(lines)));
  }

  private static List<String> errors(CapturedLog log) {
    return log.events().stream().filter(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
        .map(ILoggingEvent::getFormattedMessage).toList();
  }
}
