package ark.broker.kube;

import ark.broker.kube.QueryState.WaitingFor;
import ark.broker.question.Question;
import io.vertx.core.json.JsonObject;

import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The JSON merge patch that makes a Query's status show what the view says, holding only the fields
 * that differ. Pure: the reconciler decides with it and the tests check it without a server.
 *
 * @param description what the patch does, for the log line that reports it
 */
record StatusPatch(JsonObject body, String description) {

  /**
   * The Query waits for one of its pending questions: the one it already names if still pending (so
   * the status does not flap between questions), else the oldest. {@code since} is when the Query
   * started waiting: kept while it goes on waiting, otherwise when the question was asked, at the
   * second precision Kubernetes keeps for times.
   *
   * @param pending the Query's pending questions, oldest first; not empty
   */
  static Optional<StatusPatch> waitingFor(QueryState now, List<Question> pending) {
    Question chosen = pending.stream().filter(q -> q.id().equals(now.shownQuestionId())).findFirst()
        .orElse(pending.get(0));
    String since = now.isWaiting() && now.waitingFor() != null && now.waitingFor().since() != null
        ? now.waitingFor().since() : chosen.createdAt().truncatedTo(ChronoUnit.SECONDS).toString();
    WaitingFor wanted = new WaitingFor(since, chosen.id(), chosen.id(), chosen.origin().toolCallId());
    JsonObject status = new JsonObject();
    if (!now.isWaiting()) {
      status.put("phase", QueryState.WAITING);
    }
    if (!wanted.equals(now.waitingFor())) {
      status.put("waitingFor", new JsonObject()
          .put("since", wanted.since())
          .put("question", new JsonObject().put("id", wanted.questionId()))
          .put("taskId", wanted.taskId())
          .put("toolCallId", wanted.toolCallId()));
    }
    int others = pending.size() - 1;
    return patch(now, status, "waiting for question " + chosen.id()
        + (others == 0 ? "" : " (and " + others + " more pending)"));
  }

  /** The Query's questions are all settled: it runs again and names no question. */
  static Optional<StatusPatch> released(QueryState now) {
    JsonObject status = new JsonObject();
    if (now.isWaiting()) {
      status.put("phase", QueryState.RUNNING);
    }
    if (now.waitingFor() != null) {
      status.putNull("waitingFor");
    }
    return patch(now, status, "running again: question " + now.shownQuestionId() + " is settled and none is pending");
  }

  /** A patch of {@code status} (nothing when it is empty) with the precondition of the version it was decided on. */
  static Optional<StatusPatch> patch(QueryState now, JsonObject status, String description) {
    if (status.isEmpty()) {
      return Optional.empty();
    }
    JsonObject body = new JsonObject().put("status", status);
    // With the version the decision was made on, the API server refuses the patch if the Query changed
    // since (say, its controller finished it), instead of writing over that change.
    if (now.resourceVersion() != null) {
      body.put("metadata", new JsonObject().put("resourceVersion", now.resourceVersion()));
    }
    return Optional.of(new StatusPatch(body, Objects.requireNonNull(description)));
  }
}
