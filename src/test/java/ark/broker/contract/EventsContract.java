package ark.broker.contract;

import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static ark.broker.contract.Checks.assertError;
import static ark.broker.contract.Checks.assertSuccess;
import static ark.broker.contract.Checks.completed;
import static ark.broker.contract.Checks.controllerEvent;
import static ark.broker.contract.Checks.items;
import static ark.broker.contract.Checks.started;
import static ark.broker.contract.Checks.unique;
import static ark.broker.contract.Checks.withoutCursor;
import static org.assertj.core.api.Assertions.assertThat;

/** Query operation events: {@code POST /events} as the controller sends them, the lists, the watches, the deletes. */
public interface EventsContract extends ContractCheck {

  /** Posts an event as the controller does, which expects exactly 201 {"status":"success"}. */
  default void postEvent(ArkHttp replica, JsonObject event) throws Exception {
    Response response = replica.postJson("/events", event.encode());
    assertThat(response.status()).as("POST /events: %s", response).isEqualTo(201);
    assertThat(response.json()).isEqualTo(new JsonObject().put("status", "success"));
  }

  /** The event as the broker shows it: as posted, without {@code ttl_seconds} (and without a cursor it may add). */
  private static JsonObject stored(JsonObject posted) {
    JsonObject stored = posted.copy();
    stored.remove("ttl_seconds");
    return stored;
  }

  @Test
  default void anEventIsStoredAsPostedWithoutItsTtl() throws Exception {
    String uid = unique("uid");
    JsonObject event = controllerEvent("QueryExecutionStart", uid, unique("q"), unique("s"), Instant.now());
    postEvent(ark(), event.copy().put("ttl_seconds", 3600));
    Response read = ark().get("/events/" + uid);
    assertThat(items(read)).extracting(Checks::withoutCursor).containsExactly(stored(event));
    assertThat(read.json().getInteger("total")).isEqualTo(1);
    assertThat(read.json().getBoolean("hasMore")).isFalse();
  }

  @Test
  default void anEventWithoutAQueryIdIs400() throws Exception {
    assertThat(assertError(ark().postJson("/events", "{\"reason\":\"X\",\"data\":{}}"), 400, "VALIDATION_ERROR"))
        .contains("data.queryId");
    assertError(ark().postJson("/events", "{\"reason\":\"X\",\"data\":{\"queryId\":\"\"}}"), 400, "VALIDATION_ERROR");
  }

  @Test
  default void eventsOfAnUnknownQueryAreAnEmpty200() throws Exception {
    assertThat(ark().get("/events/" + unique("nope")).json())
        .isEqualTo(new JsonObject().put("items", new io.vertx.core.json.JsonArray()).put("total", 0).put("hasMore", false));
  }

  @Test
  default void theEventListPagesBySessionWithAnExclusiveCursor() throws Exception {
    String session = unique("s");
    String uid = unique("uid");
    JsonObject start = started(uid, session);
    JsonObject done = completed(uid, session);
    postEvent(ark(), start);
    postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), "q-2", unique("s"), Instant.now()));
    postEvent(ark(), done);

    Response first = ark().get("/events?session_id=" + session + "&limit=1");
    assertThat(items(first)).extracting(Checks::withoutCursor).containsExactly(start);
    assertThat(first.json().getInteger("total")).isEqualTo(2);
    assertThat(first.json().getBoolean("hasMore")).isTrue();
    Response second = ark().get("/events?session_id=" + session + "&limit=1&cursor=" + first.json().getLong("nextCursor"));
    assertThat(items(second)).extracting(Checks::withoutCursor).containsExactly(done);
    assertThat(second.json().getBoolean("hasMore")).isFalse();
    assertThat(second.json().containsKey("nextCursor")).isFalse();
    assertThat(items(ark().get("/events/" + uid))).extracting(Checks::withoutCursor).containsExactly(start, done);
    assertThat(items(ark().get("/events?limit=1000"))).isNotEmpty();
    assertError(ark().get("/events?limit=1001"), 400, "PAGINATION_ERROR");
  }

  @Test
  default void theEventWatchSendsNewEventsOfItsSession() throws Exception {
    String session = unique("s");
    try (EventStreamLines watch = ark().watch("/events?watch=true&session_id=" + session)) {
      assertThat(watch.nextLine(Duration.ofSeconds(5))).isEqualTo(": connected");
      postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), "q-0", unique("s"), Instant.now()));
      JsonObject mine = started(unique("uid"), session);
      postEvent(ark(), mine);
      assertThat(withoutCursor(watch.nextJson())).isEqualTo(mine);
    }
  }

  @Test
  default void theEventWatchReplaysAfterACursor() throws Exception {
    String session = unique("s");
    JsonObject start = started(unique("uid"), session);
    JsonObject done = completed(unique("uid"), session);
    postEvent(ark(), start);
    postEvent(ark(), done);
    long cursor = ark().get("/events?session_id=" + session + "&limit=1").json().getLong("nextCursor");
    try (EventStreamLines watch = ark().watch("/events?watch=true&session_id=" + session + "&cursor=" + cursor)) {
      assertThat(withoutCursor(watch.nextJson())).isEqualTo(done);
    }
  }

  @Test
  default void aQueryEventWatchReplaysFromTheBeginningThenGoesLive() throws Exception {
    String uid = unique("uid");
    String session = unique("s");
    JsonObject start = started(uid, session);
    JsonObject done = completed(uid, session);
    postEvent(ark(), start);
    try (EventStreamLines watch = ark().watch("/events/" + uid + "?watch=true&from-beginning=true")) {
      assertThat(withoutCursor(watch.nextJson())).isEqualTo(start);
      postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), "q-2", session, Instant.now()));
      postEvent(ark(), done);
      assertThat(withoutCursor(watch.nextJson())).isEqualTo(done);
    }
  }

  @Test
  default void deletingAQueryEventsAndPurgingAnswerAndRemove() throws Exception {
    String uid = unique("uid");
    String kept = unique("uid");
    postEvent(ark(), controllerEvent("QueryExecutionStart", uid, "q-1", unique("s"), Instant.now()));
    postEvent(ark(), controllerEvent("QueryExecutionStart", kept, "q-2", unique("s"), Instant.now()));
    // The controller's finalizer, for a deleted Query (by its UID).
    assertSuccess(ark().delete("/events/" + uid), "Query " + uid + " events deleted");
    assertThat(items(ark().get("/events/" + uid))).isEmpty();
    assertThat(items(ark().get("/events/" + kept))).hasSize(1);
    assertSuccess(ark().delete("/events"), "Event data purged");
    assertThat(items(ark().get("/events/" + kept))).isEmpty();
  }

  @BeyondUpstream("a purge resets the event sequence to 1: cursors clients hold skip the new events")
  default void eventCursorsKeepGrowingAcrossAPurge() throws Exception {
    String session = unique("s");
    postEvent(ark(), started(unique("uid"), session));
    postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), "q-2", session, Instant.now()));
    long before = ark().get("/events?session_id=" + session + "&limit=1").json().getLong("nextCursor");
    assertSuccess(ark().delete("/events"), "Event data purged");
    postEvent(ark(), started(unique("uid"), session));
    postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), "q-2", session, Instant.now()));
    assertThat(ark().get("/events?session_id=" + session + "&limit=1").json().getLong("nextCursor"))
        .isGreaterThan(before);
  }

  @BeyondUpstream("event items carry no cursor: a watcher cannot resume from the stream itself")
  default void eventWatchItemsCarryTheirCursorAndResumeWithoutGapsOrDuplicates() throws Exception {
    assertEventWatchResumes(ark(), ark(), ark());
  }

  /** {@link ResumableWatch#assertResumes} for the events of one session, written as the controller writes them. */
  default void assertEventWatchResumes(ArkHttp watchOn, ArkHttp writeTo, ArkHttp resumeOn) throws Exception {
    String session = unique("s");
    ResumableWatch.assertResumes(watchOn, resumeOn, "/events?watch=true&session_id=" + session,
        i -> postEvent(writeTo, controllerEvent("LLMCallStart", "uid-" + i, "q-" + i, session, Instant.now())),
        event -> event.getJsonObject("data").getString("queryId"));
  }
}
