package ark.broker.contract;

import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static ark.broker.contract.Checks.assertError;
import static ark.broker.contract.Checks.assertSuccess;
import static ark.broker.contract.Checks.completed;
import static ark.broker.contract.Checks.controllerEvent;
import static ark.broker.contract.Checks.items;
import static ark.broker.contract.Checks.started;
import static ark.broker.contract.Checks.unique;
import static ark.broker.contract.Checks.withoutCursor;
import static org.assertj.core.api.Assertions.assertThat;

/** Sessions: the projection of the controller's events (and messages), its lists, watch, direct POST and purge. */
public interface SessionsContract extends EventsContract {

  /** The controller's events of one Query that paused on a tool approval (an error) and then completed. */
  private static List<JsonObject> pausedThenCompleted(String uid, String query, String session) {
    Instant start = Instant.now();
    List<JsonObject> events = new ArrayList<>();
    for (String reason : new String[] {"QueryExecutionStart", "AgentExecutionStart", "ToolCallError",
        "AgentExecutionComplete", "QueryExecutionComplete"}) {
      JsonObject event = controllerEvent(reason, uid, query, session, start.plusMillis(10L * events.size()));
      if (reason.endsWith("Error")) {
        event.getJsonObject("data").put("error", "waiting for approval");
      }
      events.add(event);
    }
    return events;
  }

  private JsonObject session(String id) throws Exception {
    Response response = ark().get("/sessions/" + id);
    assertThat(response.status()).as("GET /sessions/%s: %s", id, response).isEqualTo(200);
    return response.json();
  }

  private JsonObject phaseView(JsonObject session, String query) {
    return new JsonObject().put("phase", session.getJsonObject("queries").getJsonObject(query).getString("phase"))
        .put("status", session.getString("status")).put("errorCount", session.getInteger("errorCount"));
  }

  @Test
  default void eventsProjectIntoASessionWithItsQueriesConversationsAndParticipants() throws Exception {
    String session = "session-" + unique("p");
    String uid = unique("uid");
    postEvent(ark(), started(uid, session));
    postEvent(ark(), completed(uid, session));

    JsonObject read = session(session);
    assertThat(read.getString("sessionId")).isEqualTo(session);
    assertThat(read.getString("name")).isEqualTo(session.substring("session-".length()));
    assertThat(read.getString("status")).isEqualTo("idle");
    assertThat(read.getInteger("errorCount")).isZero();
    assertThat(read.getString("createdAt")).matches(Checks.ISO_INSTANT);
    assertThat(read.getString("lastActivity")).matches(Checks.ISO_INSTANT);
    JsonObject query = read.getJsonObject("queries").getJsonObject("q-1");
    assertThat(query.getString("name")).isEqualTo("q-1");
    assertThat(query.getString("namespace")).isEqualTo("default");
    assertThat(query.getString("conversationId")).isEqualTo("conv-q-1");
    assertThat(query.getString("agent")).isEqualTo("agent-q-1");
    assertThat(query.getString("targetType")).isEqualTo("agent");
    assertThat(query.getString("phase")).isEqualTo("done");
    assertThat(query.getString("completedAt")).matches(Checks.ISO_INSTANT);
    JsonObject conversation = read.getJsonArray("conversations").getJsonObject(0);
    assertThat(conversation.getString("conversationId")).isEqualTo("conv-q-1");
    assertThat(conversation.getString("name")).isEqualTo("agent-q-1");
    assertThat(conversation.getJsonArray("participants")).containsExactly("agent-q-1");
    assertThat(conversation.getString("participantType")).isEqualTo("agent");
    assertThat(conversation.getInteger("messageCount")).isEqualTo(1);
    assertThat(read.getJsonArray("participants")).containsExactly(
        new JsonObject().put("id", "agent-q-1").put("name", "agent-q-1").put("type", "agent"));
  }

  @Test
  default void aRunningQueryMakesItsSessionActive() throws Exception {
    String session = unique("s");
    postEvent(ark(), started(unique("uid"), session));
    assertThat(phaseView(session(session), "q-1"))
        .isEqualTo(new JsonObject().put("phase", "running").put("status", "active").put("errorCount", 0));
  }

  @Test
  default void failedAndCanceledQueriesShowInTheirPhases() throws Exception {
    String failed = unique("s");
    String uid = unique("uid");
    postEvent(ark(), controllerEvent("QueryExecutionStart", uid, "q-1", failed, Instant.now()));
    postEvent(ark(), controllerEvent("QueryExecutionError", uid, "q-1", failed, Instant.now()));
    assertThat(phaseView(session(failed), "q-1"))
        .isEqualTo(new JsonObject().put("phase", "error").put("status", "error").put("errorCount", 1));

    String canceled = unique("s");
    postEvent(ark(), controllerEvent("QueryExecutionCanceled", unique("uid"), "q-2", canceled, Instant.now()));
    assertThat(phaseView(session(canceled), "q-2"))
        .isEqualTo(new JsonObject().put("phase", "canceled").put("status", "idle").put("errorCount", 0));

    String completedWithError = unique("s");
    JsonObject complete = controllerEvent("QueryExecutionComplete", unique("uid"), "q-3", completedWithError,
        Instant.now());
    complete.getJsonObject("data").put("error", "the LLM failed");
    postEvent(ark(), complete);
    assertThat(phaseView(session(completedWithError), "q-3").getString("phase")).isEqualTo("error");
  }

  @Test
  default void aLaterCompletionClearsAnEarlierError() throws Exception {
    String session = unique("s");
    for (JsonObject event : pausedThenCompleted(unique("uid"), "q-1", session)) {
      postEvent(ark(), event);
    }
    assertThat(phaseView(session(session), "q-1"))
        .isEqualTo(new JsonObject().put("phase", "done").put("status", "idle").put("errorCount", 0));
  }

  @Test
  default void sessionsWithoutLimitAreTheWholeStoreById() throws Exception {
    String session = unique("s");
    postEvent(ark(), started(unique("uid"), session));
    JsonObject all = ark().get("/sessions").json();
    assertThat(all.fieldNames()).containsExactly("sessions");
    assertThat(all.getJsonObject("sessions").getJsonObject(session)).isEqualTo(session(session));
  }

  @Test
  default void sessionPagesCarryStatusCountsAndFollowTheFilters() throws Exception {
    String token = unique("tok");
    String active = "a-" + token;
    String idle = "b-" + token;
    postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), "q-1", active, Instant.now()));
    String uid = unique("uid");
    postEvent(ark(), controllerEvent("QueryExecutionStart", uid, "q-2", idle, Instant.now()));
    postEvent(ark(), controllerEvent("QueryExecutionComplete", uid, "q-2", idle, Instant.now()));

    Response page = ark().get("/sessions?limit=10&search=" + token + "&sort=name&order=asc");
    assertThat(items(page)).extracting(item -> item.getString("sessionId")).containsExactly(active, idle);
    assertThat(page.json().getInteger("total")).isEqualTo(2);
    assertThat(page.json().getBoolean("hasMore")).isFalse();
    assertThat(page.json().getJsonObject("statusCounts"))
        .isEqualTo(new JsonObject().put("active", 1).put("idle", 1).put("error", 0));

    assertThat(items(ark().get("/sessions?limit=10&search=" + token + "&status=idle")))
        .extracting(item -> item.getString("sessionId")).containsExactly(idle);
    assertThat(items(ark().get("/sessions?limit=10&search=" + token + "&sort=name&order=desc")))
        .extracting(item -> item.getString("sessionId")).containsExactly(idle, active);
    Response first = ark().get("/sessions?limit=1&search=" + token + "&sort=name&order=asc");
    assertThat(first.json().getBoolean("hasMore")).isTrue();
    Response second = ark().get("/sessions?limit=1&search=" + token + "&sort=name&order=asc&cursor="
        + first.json().getLong("nextCursor"));
    assertThat(items(second)).extracting(item -> item.getString("sessionId")).containsExactly(idle);
    assertThat(items(ark().get("/sessions?limit=10&search=" + token + "&dateFrom=2999-01-01T00:00:00Z"))).isEmpty();
  }

  @Test
  default void sessionListParametersAreChecked() throws Exception {
    assertThat(assertError(ark().get("/sessions?limit=10&status=bogus"), 400, "VALIDATION_ERROR")).contains("status");
    assertError(ark().get("/sessions?limit=10&sort=size"), 400, "VALIDATION_ERROR");
    assertError(ark().get("/sessions?limit=0"), 400, "PAGINATION_ERROR");
  }

  @Test
  default void anUnknownSessionIs404() throws Exception {
    assertThat(assertError(ark().get("/sessions/" + unique("none")), 404, "NOT_FOUND")).isEqualTo("Session not found");
  }

  @Test
  default void aPostedSessionEventUpsertsItsSession() throws Exception {
    String session = unique("s");
    Response posted = ark().postJson("/sessions", new JsonObject().put("sessionId", session).put("queryName", "q-9")
        .put("agent", "a2").put("_reason", "AgentExecutionStart").encode());
    assertThat(posted.status()).isEqualTo(201);
    assertThat(posted.json()).isEqualTo(new JsonObject().put("status", "success"));
    JsonObject query = session(session).getJsonObject("queries").getJsonObject("q-9");
    assertThat(query.getString("phase")).isEqualTo("running");
    assertThat(query.getString("agent")).isEqualTo("a2");
    assertError(ark().postJson("/sessions", "{\"queryName\":\"q-9\"}"), 400, "VALIDATION_ERROR");
  }

  @Test
  default void theSessionWatchSendsTheSessionThenEachChange() throws Exception {
    String session = unique("s");
    String uid = unique("uid");
    postEvent(ark(), started(uid, session));
    try (EventStreamLines watch = ark().watch("/sessions?watch=true&session_id=" + session)) {
      JsonObject replayed = withoutCursor(watch.nextJson());
      assertThat(replayed.fieldNames()).containsExactlyInAnyOrder("sessionId", "session");
      assertThat(replayed.getString("sessionId")).isEqualTo(session);
      assertThat(phaseView(replayed.getJsonObject("session"), "q-1").getString("phase")).isEqualTo("running");
      postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), "q-0", unique("s"), Instant.now()));
      postEvent(ark(), completed(uid, session));
      JsonObject changed = withoutCursor(watch.nextJson());
      assertThat(changed.getString("sessionId")).isEqualTo(session);
      assertThat(phaseView(changed.getJsonObject("session"), "q-1").getString("phase")).isEqualTo("done");
    }
  }

  @Test
  default void purgingSessionsForgetsThem() throws Exception {
    String session = unique("s");
    postEvent(ark(), started(unique("uid"), session));
    assertSuccess(ark().delete("/sessions"), "Sessions purged");
    assertThat(ark().get("/sessions/" + session).status()).isEqualTo(404);
    assertThat(ark().get("/sessions").json()).isEqualTo(new JsonObject().put("sessions", new JsonObject()));
  }

  @BeyondUpstream("0.1.67 has no such route (404); later releases answer it alike, and Ark's Query finalizer calls it")
  default void theQueryFinalizerTakesAQueryOutOfItsSessions() throws Exception {
    String session = unique("s");
    String gone = unique("q");
    String kept = unique("q");
    String alone = unique("s");
    postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), gone, session, Instant.now()));
    postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), kept, session, Instant.now()));
    postEvent(ark(), controllerEvent("QueryExecutionStart", unique("uid"), gone, alone, Instant.now()));

    Response removed = ark().delete("/sessions/queries/" + gone);
    assertThat(removed.status()).as("%s", removed).isEqualTo(200);
    assertThat(removed.json()).isEqualTo(new JsonObject().put("removed", 2));
    assertThat(session(session).getJsonObject("queries").fieldNames()).containsExactly(kept);
    assertThat(ark().get("/sessions/" + alone).status()).as("a session left with no Query").isEqualTo(404);

    assertThat(ark().delete("/sessions/queries/" + gone).json()).as("again").isEqualTo(new JsonObject().put("removed", 0));
    assertThat(ark().delete("/sessions/queries/" + unique("unknown")).json()).as("a Query no session lists")
        .isEqualTo(new JsonObject().put("removed", 0));
  }

  @BeyondUpstream("the phase follows arrival order: a tool's error that arrives after the completion leaves the"
      + " Query in error, although the controller sends events unordered")
  default void aQueryPhaseDoesNotDependOnTheOrderItsEventsArrive() throws Exception {
    String session = unique("s");
    List<JsonObject> reversed = new ArrayList<>(pausedThenCompleted(unique("uid"), "q-1", session));
    Collections.reverse(reversed);
    for (JsonObject event : reversed) {
      postEvent(ark(), event);
    }
    assertThat(phaseView(session(session), "q-1"))
        .isEqualTo(new JsonObject().put("phase", "done").put("status", "idle").put("errorCount", 0));

    String startedLate = unique("s");
    String uid = unique("uid");
    Instant at = Instant.now();
    postEvent(ark(), controllerEvent("QueryExecutionComplete", uid, "q-2", startedLate, at.plusMillis(10)));
    postEvent(ark(), controllerEvent("QueryExecutionStart", uid, "q-2", startedLate, at));
    assertThat(phaseView(session(startedLate), "q-2").getString("phase")).isEqualTo("done");
  }

  @BeyondUpstream("a replayed event is applied again: a replayed tool error turns a done Query back to error")
  default void aReplayedEventChangesNothing() throws Exception {
    String session = unique("s");
    List<JsonObject> events = pausedThenCompleted(unique("uid"), "q-1", session);
    for (JsonObject event : events) {
      postEvent(ark(), event);
    }
    JsonObject before = session(session);
    postEvent(ark(), events.get(2));
    postEvent(ark(), events.get(0));
    assertThat(session(session)).isEqualTo(before);
  }

  /** A Query of the session that started, its events naming no conversation; its name. */
  default String startedWithoutConversation(String session) throws Exception {
    JsonObject start = controllerEvent("QueryExecutionStart", unique("uid"), unique("q"), session, Instant.now());
    start.getJsonObject("data").remove("conversationId");
    postEvent(ark(), start);
    return start.getJsonObject("data").getString("queryName");
  }

  @BeyondUpstream("0.1.67 leaves the Query unattached; later releases attach it, as Ark's executors expect")
  default void aPostOfNoMessageAttachesTheQueryToItsConversation() throws Exception {
    String session = unique("s");
    String query = startedWithoutConversation(session);
    String conversation = unique("conv");

    assertThat(ark().postJson("/messages", Checks.messages(conversation, query)).status()).isEqualTo(200);
    JsonObject read = session(session);
    assertThat(read.getJsonObject("queries").getJsonObject(query).getString("conversationId")).isEqualTo(conversation);
    assertThat(read.getJsonArray("conversations")).hasSize(1);
    assertThat(items(ark().get("/messages?conversation_id=" + conversation))).as("no message was written").isEmpty();

    assertThat(ark().postJson("/messages", Checks.messages(unique("conv"), query, Checks.chat("user", "hi"))).status())
        .isEqualTo(200);
    assertThat(session(session).getJsonObject("queries").getJsonObject(query).getString("conversationId"))
        .as("the first to say it stays").isEqualTo(conversation);

    assertThat(ark().delete("/sessions/queries/" + query).json().getInteger("removed")).isEqualTo(1);
  }

  @Test
  default void aMessageLinksItsConversationToTheQuerysSession() throws Exception {
    String session = unique("s");
    String query = startedWithoutConversation(session);
    String conversation = unique("conv");
    assertThat(ark().postJson("/messages", Checks.messages(conversation, query, Checks.chat("user", "hi"))).status())
        .isEqualTo(200);
    assertThat(session(session).getJsonObject("queries").getJsonObject(query).getString("conversationId"))
        .isEqualTo(conversation);
  }

  @Test
  default void aControllerQuerysSixtyFourUnorderedConcurrentEventsAreAllKeptAndEndDone() throws Exception {
    String session = unique("s");
    String uid = unique("uid");
    String query = unique("q");
    List<String> operations = new ArrayList<>(List.of("QueryExecution", "AgentExecution"));
    for (int i = 0; i < 15; i++) {
      operations.add("LLMCall");
      operations.add("ToolCall");
    }
    Instant at = Instant.now();
    List<JsonObject> events = new ArrayList<>();
    for (String operation : operations) {
      events.add(controllerEvent(operation + "Start", uid, query, session, at.plusMillis(events.size())));
      events.add(controllerEvent(operation + "Complete", uid, query, session, at.plusMillis(events.size())));
    }
    Collections.shuffle(events, new java.util.Random(64));
    // The controller's emitter: a goroutine per event, at most 64 in flight, each expecting exactly 201.
    java.util.concurrent.ExecutorService emitter = java.util.concurrent.Executors.newFixedThreadPool(64);
    try {
      List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
      for (JsonObject event : events) {
        sent.add(emitter.submit(() -> {
          postEvent(ark(), event);
          return null;
        }));
      }
      for (java.util.concurrent.Future<?> each : sent) {
        each.get();
      }
    } finally {
      emitter.shutdownNow();
    }
    assertThat(items(ark().get("/events/" + uid + "?limit=1000"))).extracting(Checks::withoutCursor)
        .containsExactlyInAnyOrderElementsOf(events);
    assertThat(phaseView(session(session), query))
        .isEqualTo(new JsonObject().put("phase", "done").put("status", "idle").put("errorCount", 0));
  }
}
