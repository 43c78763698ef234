package ark.broker.kube;

import ark.broker.question.NewQuestion;
import ark.broker.question.QueryRef;
import ark.broker.question.Question;
import ark.broker.question.QuestionIds;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** The status a Query should show, decided without a server. */
class StatusPatchTest {
  private static final QueryRef REF = new QueryRef("agents", "release");

  private static Question pending(String toolCallId, String createdAt) {
    NewQuestion request = new NewQuestion(null, "ark://users/john", null, "Deploy?", null, null, null, true, null, null, false, null, null,
        null, null, REF, toolCallId, null);
    return request.toQuestion(QuestionIds.forRequest(request), Instant.parse(createdAt));
  }

  private static QueryState shows(Map<String, Object> status) {
    return QueryState.of(REF.namespace(), REF.name(), "17", 1L, status);
  }

  private static Map<String, Object> waitingFor(String questionId, String since) {
    return Map.of("phase", "waiting", "waitingFor", Map.of("since", since, "question", Map.of("id", questionId),
        "taskId", questionId, "toolCallId", "call_1"));
  }

  @Test
  void aRunningQueryWithAPendingQuestionIsSetWaitingForIt() {
    Question question = pending("call_1", "2026-11-22T10:30:05.789Z");

    JsonObject patch = StatusPatch.waitingFor(shows(Map.of("phase", "running")), List.of(question)).orElseThrow().body();

    assertThat(patch).isEqualTo(new JsonObject()
        .put("metadata", new JsonObject().put("resourceVersion", "17"))
        .put("status", new JsonObject().put("phase", "waiting").put("waitingFor", new JsonObject()
            .put("since", "2026-11-22T10:30:05Z")
            .put("question", new JsonObject().put("id", question.id()))
            .put("taskId", question.id())
            .put("toolCallId", "call_1"))));
  }

  @Test
  void aQueryWaitingForOneOfItsPendingQuestionsIsLeftAsItIs() {
    Question older = pending("call_1", "2026-11-22T10:30:00Z");
    Question newer = pending("call_2", "2026-11-22T10:31:00Z");
    // It names the newer one: switching to the older would only make the status flap.
    QueryState now = shows(Map.of("phase", "waiting", "waitingFor", Map.of("since", "2026-11-22T10:29:00Z",
        "question", Map.of("id", newer.id()), "taskId", newer.id(), "toolCallId", "call_2")));

    assertThat(StatusPatch.waitingFor(now, List.of(older, newer))).isEmpty();
  }

  @Test
  void whenItsQuestionIsSettledTheQueryWaitsForTheOldestPendingOneSinceItFirstWaited() {
    Question older = pending("call_2", "2026-11-22T10:31:00Z");
    Question newer = pending("call_3", "2026-11-22T10:32:00Z");

    JsonObject status = StatusPatch.waitingFor(shows(waitingFor("q-settled", "2026-11-22T10:30:00Z")),
        List.of(older, newer)).orElseThrow().body().getJsonObject("status");

    assertThat(status.containsKey("phase")).as("already waiting").isFalse();
    assertThat(status.getJsonObject("waitingFor").getJsonObject("question").getString("id")).isEqualTo(older.id());
    assertThat(status.getJsonObject("waitingFor").getString("since")).isEqualTo("2026-11-22T10:30:00Z");
    assertThat(status.getJsonObject("waitingFor").getString("toolCallId")).isEqualTo("call_2");
  }

  @Test
  void releasingSetsRunningAndRemovesWaitingFor() {
    StatusPatch released = StatusPatch.released(shows(waitingFor("q-1", "2026-11-22T10:30:00Z"))).orElseThrow();

    assertThat(released.body().getJsonObject("status").encode()).isEqualTo("{\"phase\":\"running\",\"waitingFor\":null}");
  }

  @Test
  void aQueryThatShowsNoQuestionNeedsNoRelease() {
    assertThat(StatusPatch.released(shows(Map.of("phase", "running")))).isEqualTo(Optional.empty());
  }
}
