package ark.broker.http;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.SseStream;
import ark.broker.testing.SseStream.SseEvent;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/** The SSE watch: live changes, resuming without gaps or repeats, too-old versions, heartbeats, expiry. */
class WatchTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(
      new JsonObject().put("http", new JsonObject().put("heartbeatSeconds", 1)), started -> broker = started);

  @Test
  void aWatchWithoutVersionStreamsChangesFromNow() throws Exception {
    String recipient = someone();
    broker.ask("{'recipient':'" + recipient + "','content':'before'}");
    try (SseStream watch = broker.watch("recipient=" + recipient, null)) {
      assertThat(watch.status).isEqualTo(200);
      assertThat(watch.contentType).startsWith("text/event-stream");
      assertThat(watch.nextComment(5, TimeUnit.SECONDS)).startsWith("watching questions from now");

      JsonObject created = broker.ask("{'recipient':'" + recipient + "','content':'after'}");
      broker.patch("/questions/" + created.getString("id"), "{\"response\":\"ok\"}");
      JsonObject other = broker.ask("{'recipient':'" + recipient + "','content':'to cancel'}");
      broker.delete("/questions/" + other.getString("id"));

      SseEvent first = watch.next();
      SseEvent second = watch.next();
      SseEvent third = watch.next();
      SseEvent fourth = watch.next();
      assertThat(first.event()).isEqualTo("question_created");
      assertThat(first.json()).isEqualTo(created);
      assertThat(first.id()).isEqualTo(created.getString("resourceVersion"));
      assertThat(second.event()).isEqualTo("question_answered");
      assertThat(second.json().getString("response")).isEqualTo("ok");
      assertThat(third.event()).isEqualTo("question_created");
      assertThat(fourth.event()).isEqualTo("question_cancelled");
      assertThat(List.of(first.id(), second.id(), third.id(), fourth.id()))
          .extracting(Long::parseLong).isSorted();
    }
  }

  @Test
  void changesArrivingTogetherReachEachWatcherInOrderAndOnlyTheOnesItWatches() throws Exception {
    String mine = someone();
    String theirs = someone();
    try (SseStream watch = broker.watch("recipient=" + mine, null)) {
      assertThat(watch.nextComment(5, TimeUnit.SECONDS)).startsWith("watching questions from now");
      java.util.concurrent.ExecutorService askers = java.util.concurrent.Executors.newFixedThreadPool(8);
      List<java.util.concurrent.Future<JsonObject>> asked = new ArrayList<>();
      try {
        for (int i = 0; i < 40; i++) {
          String recipient = i % 2 == 0 ? mine : theirs;
          String content = "at once " + i;
          asked.add(askers.submit(() -> broker.ask("{'recipient':'" + recipient + "','content':'" + content + "'}")));
        }
        List<String> expected = new ArrayList<>();
        for (java.util.concurrent.Future<JsonObject> question : asked) {
          JsonObject created = question.get(10, TimeUnit.SECONDS);
          if (created.getString("recipient").equals(mine)) {
            expected.add(created.getString("id"));
          }
        }
        List<SseEvent> seen = new ArrayList<>();
        for (int i = 0; i < expected.size(); i++) {
          seen.add(watch.next());
        }
        assertThat(seen).extracting(event -> event.json().getString("id")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(seen).extracting(event -> Long.parseLong(event.id())).isSorted().doesNotHaveDuplicates();
        JsonObject last = broker.ask("{'recipient':'" + mine + "','content':'after them'}");
        assertThat(watch.next().json().getString("id")).isEqualTo(last.getString("id"));
      } finally {
        askers.shutdownNow();
      }
    }
  }

  @Test
  void aWatchFromTheListVersionGetsEverythingAfterIt() throws Exception {
    String recipient = someone();
    broker.ask("{'recipient':'" + recipient + "','content':'listed'}");
    String listVersion = broker.get("/questions?recipient=" + recipient).json().getString("resourceVersion");
    JsonObject missedWhileNotWatching = broker.ask("{'recipient':'" + recipient + "','content':'in between'}");

    try (SseStream watch = broker.watch("recipient=" + recipient + "&resourceVersion=" + listVersion, null)) {
      SseEvent replayed = watch.next();
      JsonObject live = broker.ask("{'recipient':'" + recipient + "','content':'live'}");
      SseEvent liveEvent = watch.next();

      assertThat(replayed.json()).isEqualTo(missedWhileNotWatching);
      assertThat(liveEvent.json()).isEqualTo(live);
    }
  }

  @Test
  void reconnectingWithTheLastIdMissesNothingAndRepeatsNothingWhileWritesGoOn() throws Exception {
    String recipient = someone();
    String start = broker.get("/questions?recipient=" + recipient).json().getString("resourceVersion");
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicReference<Throwable> writerFailure = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try {
        for (int i = 0; writing.get(); i++) {
          JsonObject question = broker.ask("{'recipient':'" + recipient + "','content':'n" + i + "'}");
          if (i % 2 == 0) {
            broker.patch("/questions/" + question.getString("id"), "{\"response\":\"yes\"}");
          }
        }
      } catch (Throwable e) {
        writerFailure.set(e);
      }
    });
    writer.start();

    List<Long> seen = new ArrayList<>();
    String lastId = start;
    for (int connection = 0; connection < 5; connection++) {
      try (SseStream watch = broker.watch("recipient=" + recipient, lastId)) {
        for (int i = 0; i < 20; i++) {
          SseEvent event = watch.next();
          seen.add(Long.parseLong(event.id()));
          lastId = event.id();
        }
      }
    }
    writing.set(false);
    writer.join();
    String end = broker.get("/questions?recipient=" + recipient).json().getString("resourceVersion");
    List<Long> everything = new ArrayList<>();
    try (SseStream all = broker.watch("recipient=" + recipient + "&resourceVersion=" + start, null)) {
      while (everything.isEmpty() || everything.get(everything.size() - 1) < Long.parseLong(end)) {
        everything.add(Long.parseLong(all.next().id()));
      }
    }

    assertThat(writerFailure.get()).isNull();
    assertThat(seen).hasSize(100).doesNotHaveDuplicates().isSorted();
    assertThat(everything.subList(0, 100)).isEqualTo(seen);
  }

  @Test
  void idleStreamsGetHeartbeats() throws Exception {
    try (SseStream watch = broker.watch("recipient=" + someone(), null)) {
      watch.nextComment(5, TimeUnit.SECONDS);

      assertThat(watch.nextComment(3, TimeUnit.SECONDS)).isEqualTo("heartbeat");
    }
  }

  @Test
  void expiredQuestionsAreSeenByWatchersWithinASecondOrSo() throws Exception {
    String recipient = someone();
    try (SseStream watch = broker.watch("recipient=" + recipient, null)) {
      JsonObject question = broker.ask("{'recipient':'" + recipient + "','content':'quick','ttlSeconds':1}");
      assertThat(watch.next().event()).isEqualTo("question_created");

      SseEvent expired = watch.next(3, TimeUnit.SECONDS);

      assertThat(expired).isNotNull();
      assertThat(expired.event()).isEqualTo("question_expired");
      assertThat(expired.json().getString("id")).isEqualTo(question.getString("id"));
      assertThat(expired.json().getString("status")).isEqualTo("expired");
      assertThat(broker.get("/questions/" + question.getString("id")).json().getString("status")).isEqualTo("expired");
    }
  }

  @Test
  void aVersionOlderThanTheRetainedHistoryGetsA410ErrorEventAndTheStreamEnds(@TempDir Path ownData) throws Exception {
    try (TestBroker small = TestBroker.start(ownData, new JsonObject().put("store", new JsonObject().put("watchHistory", 5)))) {
      for (int i = 0; i < 10; i++) {
        small.ask("{'recipient':'ark://users/john','content':'n" + i + "'}");
      }

      try (SseStream tooOld = small.watch("", "2"); SseStream recent = small.watch("resourceVersion=6", null)) {
        SseEvent error = tooOld.next();
        assertThat(error.event()).isEqualTo("error");
        assertThat(error.json().getJsonObject("error").getInteger("code")).isEqualTo(410);
        assertThat(error.json().getJsonObject("error").getString("reason")).isEqualTo("Expired");
        assertThat(error.json().getJsonObject("error").getString("message")).contains("list again");
        assertThat(tooOld.next().event()).isEqualTo("end-of-stream");

        assertThat(List.of(recent.next().id(), recent.next().id(), recent.next().id(), recent.next().id()))
            .containsExactly("7", "8", "9", "10");
      }
    }
  }

  @Test
  void aVersionBeyondTheNewestChangeGetsA410ErrorEventAndTheStreamEnds() throws Exception {
    long newest = Long.parseLong(broker.get("/questions?limit=1").json().getString("resourceVersion"));

    try (SseStream fromTheFuture = broker.watch("resourceVersion=" + (newest + 1000), null)) {
      SseEvent error = fromTheFuture.next();
      assertThat(error.event()).isEqualTo("error");
      assertThat(error.json().getJsonObject("error").getInteger("code")).isEqualTo(410);
      assertThat(error.json().getJsonObject("error").getString("message")).contains("newer than anything", "list again");
      assertThat(fromTheFuture.next().event()).isEqualTo("end-of-stream");
    }
  }
}
