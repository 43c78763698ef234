package ark.broker;

import ark.broker.contract.ArkHttp;
import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.Checks;
import ark.broker.contract.EventStreamLines;
import ark.broker.contract.RawExchange;
import ark.broker.testing.BrokerProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ark's broker routes killed with SIGKILL in the middle of a long NDJSON post (the Go executor's) and of message
 * writes: every chunk a reader was sent and every message answered 200 is there after the restart, and the stream
 * then resumes and ends as an executor that retries would have it.
 */
class ArkStoresCrashSafetyIT {
  private static final String QUERY = "query-killed-mid-stream";
  private static final String CONVERSATION = "conversation-killed-mid-write";
  /** Short, so the post cut by the kill counts as ended soon after the stream is completed. */
  private static final Map<String, String> ENVIRONMENT = Map.of("STREAMS_PRODUCER_IDLE_SECONDS", "2");

  @TempDir
  Path dataDir;

  private final Set<String> acknowledgedMessages = ConcurrentHashMap.newKeySet();
  private volatile Exception writerStoppedBy;
  /** The kill comes only once this many messages were acknowledged, so that some writes are in flight when it does. */
  private final CountDownLatch acknowledgedBeforeTheKill = new CountDownLatch(20);

  @Test
  void whatWasSentOrAcknowledgedBeforeAKillIsThereAndTheStreamResumesThenEnds() throws Exception {
    int port = BrokerProcess.freePort();
    List<JsonObject> seenBeforeTheKill = new ArrayList<>();
    try (BrokerProcess broker = BrokerProcess.start(dataDir, port, ENVIRONMENT)) {
      ArkHttp ark = BrokerUnderTest.at(broker.base).first();
      AtomicBoolean writing = new AtomicBoolean(true);
      Thread messageWriter = new Thread(() -> writeMessagesUntilRefused(ark, writing), "message-writer");
      messageWriter.start();
      try (EventStreamLines reader = ark.watch("/stream/" + QUERY + "?from-beginning=true");
           RawExchange post = RawExchange.chunkedPost(broker.base, "/stream/" + QUERY, "application/x-ndjson")) {
        for (int i = 0; i < 200; i++) {
          post.line(Checks.chunk(QUERY, "before " + i).encode());
        }
        while (seenBeforeTheKill.size() < 100) {
          seenBeforeTheKill.add(reader.nextJson());
        }
        assertThat(acknowledgedBeforeTheKill.await(30, TimeUnit.SECONDS)).as("20 messages acknowledged").isTrue();
        broker.kill();
      } finally {
        writing.set(false);
        messageWriter.join();
      }
    }
    assertThat(acknowledgedMessages).as("messages answered 200 before the kill (writer stopped by %s)", writerStoppedBy).hasSizeGreaterThanOrEqualTo(20);

    try (BrokerProcess restarted = BrokerProcess.start(dataDir, port, ENVIRONMENT)) {
      ArkHttp ark = BrokerUnderTest.at(restarted.base).first();
      assertThat(contentsOf(ark.get("/messages?conversation_id=" + CONVERSATION).json().getJsonArray("items")))
          .containsAll(acknowledgedMessages);

      List<JsonObject> resumed = new ArrayList<>();
      try (RawExchange post = RawExchange.chunkedPost(restarted.base, "/stream/" + QUERY, "application/x-ndjson")) {
        for (int i = 0; i < 10; i++) {
          JsonObject chunk = Checks.chunk(QUERY, "after " + i);
          resumed.add(chunk);
          post.line(chunk.encode());
        }
        assertThat(post.finish(Duration.ofSeconds(10)).json().getInteger("chunks_received")).isEqualTo(10);
      }
      assertThat(ark.postJson("/stream/" + QUERY + "/complete", "{}").status()).isEqualTo(200);

      try (EventStreamLines reader = ark.watch("/stream/" + QUERY + "?from-beginning=true")) {
        List<JsonObject> chunks = new ArrayList<>();
        for (String data = reader.nextData(); !"[DONE]".equals(data); data = reader.nextData()) {
          assertThat(data).as("a chunk or [DONE] after %s", chunks.size()).isNotNull();
          chunks.add(new JsonObject(data));
        }
        assertThat(chunks.subList(0, seenBeforeTheKill.size())).isEqualTo(seenBeforeTheKill);
        assertThat(chunks.subList(chunks.size() - resumed.size(), chunks.size())).isEqualTo(resumed);
        assertThat(contentsOf(chunks)).doesNotHaveDuplicates();
      }
    }
  }

  private void writeMessagesUntilRefused(ArkHttp ark, AtomicBoolean writing) {
    for (int i = 0; writing.get(); i++) {
      String content = "message " + i;
      try {
        String body = Checks.messages(CONVERSATION, QUERY, Checks.chat("user", content));
        if (ark.postJson("/messages", body).status() == 200) {
          acknowledgedMessages.add(content);
          acknowledgedBeforeTheKill.countDown();
        }
      } catch (Exception killed) {
        writerStoppedBy = killed;
        return;
      }
    }
  }

  private static List<String> contentsOf(JsonArray items) {
    return items.stream().map(item -> ((JsonObject) item).getJsonObject("message").getString("content")).toList();
  }

  private static List<String> contentsOf(List<JsonObject> chunks) {
    return chunks.stream().map(chunk -> chunk.getJsonArray("choices").getJsonObject(0).getJsonObject("delta")
        .getString("content")).toList();
  }
}
