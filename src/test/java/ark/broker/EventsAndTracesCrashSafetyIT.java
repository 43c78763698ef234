package ark.broker;

import ark.broker.contract.ArkHttp;
import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.Checks;
import ark.broker.contract.OtlpRequests;
import ark.broker.testing.BrokerProcess;
import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The broker killed with SIGKILL while controllers post Query events and exporters post OTLP protobuf spans: every
 * event and span answered 2xx is there after the restart, as it was read before, and the sessions projected from the
 * events show every Query whose completion was acknowledged as done.
 */
class EventsAndTracesCrashSafetyIT {
  private static final int EVENT_WRITERS = 4;
  private static final int SPAN_WRITERS = 2;
  private static final int SPANS_PER_REQUEST = 5;

  @TempDir
  Path dataDir;

  /** Query UID -> the events of it answered 201, as posted. */
  private final Map<String, List<JsonObject>> acknowledgedEvents = new ConcurrentHashMap<>();
  /** The Queries whose completion was answered 201, by session. */
  private final Map<String, Set<String>> completedQueries = new ConcurrentHashMap<>();
  /** Session of an export request -> the base64 ids of its spans, for the requests answered 200. */
  private final Map<String, Set<String>> acknowledgedSpans = new ConcurrentHashMap<>();
  private final CountDownLatch eventsBeforeTheKill = new CountDownLatch(400);
  private final CountDownLatch spanRequestsBeforeTheKill = new CountDownLatch(60);
  /** Why a writer stopped while the broker was still up: a failure the test reports, not the kill it waits for. */
  private final Queue<String> stoppedBeforeTheKill = new ConcurrentLinkedQueue<>();

  @Test
  void everyAcknowledgedEventAndSpanSurvivesKill9() throws Exception {
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.start(dataDir, port, Map.of())) {
      ArkHttp ark = BrokerUnderTest.at(broker.base).first();
      AtomicBoolean writing = new AtomicBoolean(true);
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < EVENT_WRITERS; w++) {
        String session = "crash-session-" + w;
        writers.add(new Thread(() -> postEventsUntilKilled(ark, session, writing), "event-writer-" + w));
      }
      for (int w = 0; w < SPAN_WRITERS; w++) {
        int writer = w;
        writers.add(new Thread(() -> postSpansUntilKilled(ark, writer, writing), "span-writer-" + w));
      }
      writers.forEach(Thread::start);
      try {
        assertThat(eventsBeforeTheKill.await(60, TimeUnit.SECONDS))
            .as("400 events acknowledged; writers stopped before the kill: %s", stoppedBeforeTheKill).isTrue();
        assertThat(spanRequestsBeforeTheKill.await(60, TimeUnit.SECONDS))
            .as("60 span requests acknowledged; writers stopped before the kill: %s", stoppedBeforeTheKill).isTrue();
        broker.kill();
      } finally {
        writing.set(false);
        for (Thread writer : writers) {
          writer.join();
        }
      }
    }

    try (BrokerProcess restarted = BrokerProcess.start(dataDir, port, Map.of())) {
      ArkHttp ark = BrokerUnderTest.at(restarted.base).first();
      for (Map.Entry<String, List<JsonObject>> query : acknowledgedEvents.entrySet()) {
        List<JsonObject> kept = itemsOf(ark.get("/events/" + query.getKey()).json()).stream()
            .map(EventsAndTracesCrashSafetyIT::withoutSequence).toList();
        assertThat(kept).as("events of %s", query.getKey()).containsAll(query.getValue());
      }
      for (Map.Entry<String, Set<String>> session : completedQueries.entrySet()) {
        JsonObject queries = ark.get("/sessions/" + session.getKey()).json().getJsonObject("queries");
        for (String queryName : session.getValue()) {
          assertThat(queries.getJsonObject(queryName)).as("%s in %s", queryName, session.getKey()).isNotNull();
          assertThat(queries.getJsonObject(queryName).getString("phase")).as(queryName).isEqualTo("done");
        }
      }
      for (Map.Entry<String, Set<String>> request : acknowledgedSpans.entrySet()) {
        List<String> spanIds = itemsOf(ark.get("/traces?session_id=" + request.getKey()).json()).stream()
            .flatMap(trace -> trace.getJsonArray("spans").stream())
            .map(span -> ((JsonObject) span).getString("spanId")).toList();
        assertThat(spanIds).as("spans of %s", request.getKey()).containsExactlyInAnyOrderElementsOf(request.getValue());
      }
    }
  }

  /** Each Query's start then completion, with the operation's own timestamps, until the broker is gone. */
  private void postEventsUntilKilled(ArkHttp ark, String session, AtomicBoolean writing) {
    for (int i = 0; writing.get(); i++) {
      String uid = session + "-uid-" + i;
      String queryName = "query-" + i;
      Instant started = Instant.now();
      for (JsonObject event : List.of(Checks.controllerEvent("QueryExecutionStart", uid, queryName, session, started),
          Checks.controllerEvent("QueryExecutionComplete", uid, queryName, session, started.plusMillis(1)))) {
        try {
          Response response = ark.postJson("/events", event.encode());
          if (response.status() != 201) {
            stopped(writing, "POST /events " + response.status() + " " + response.body());
            return;
          }
        } catch (Exception killed) {
          stopped(writing, "POST /events " + killed);
          return;
        }
        acknowledgedEvents.computeIfAbsent(uid, key -> new ArrayList<>()).add(event);
        eventsBeforeTheKill.countDown();
      }
      completedQueries.computeIfAbsent(session, key -> ConcurrentHashMap.newKeySet()).add(queryName);
    }
  }

  private void stopped(AtomicBoolean writing, String why) {
    if (writing.get()) {
      stoppedBeforeTheKill.add(Thread.currentThread().getName() + ": " + why);
    }
  }

  /** OTLP/HTTP protobuf export requests, each of its own session, until the broker is gone. */
  private void postSpansUntilKilled(ArkHttp ark, int writer, AtomicBoolean writing) {
    for (int i = 0; writing.get(); i++) {
      String session = "crash-spans-" + writer + "-" + i;
      List<byte[]> spanIds = IntStream.range(0, SPANS_PER_REQUEST).mapToObj(n -> OtlpRequests.randomId(8)).toList();
      byte[] request = OtlpRequests.protobuf(OtlpRequests.randomId(16), spanIds, session, "crash-test");
      try {
        Response response = ark.post("/v1/traces", "application/x-protobuf", request);
        if (response.status() != 200) {
          stopped(writing, "POST /v1/traces " + response.status() + " " + response.body());
          return;
        }
      } catch (Exception killed) {
        stopped(writing, "POST /v1/traces " + killed);
        return;
      }
      Set<String> ids = ConcurrentHashMap.newKeySet();
      spanIds.forEach(id -> ids.add(OtlpRequests.base64(id)));
      acknowledgedSpans.put(session, ids);
      spanRequestsBeforeTheKill.countDown();
    }
  }

  private static List<JsonObject> itemsOf(JsonObject page) {
    JsonArray items = page.getJsonArray("items");
    assertThat(items).as("items of %s", page).isNotNull();
    return items.stream().map(JsonObject.class::cast).toList();
  }

  private static JsonObject withoutSequence(JsonObject item) {
    JsonObject copy = item.copy();
    copy.remove("sequence");
    return copy;
  }
}
