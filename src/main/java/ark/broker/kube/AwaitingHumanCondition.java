package ark.broker.kube;

import ark.broker.question.Question;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The broker's own condition on a Query, the status a stock Ark accepts: {@value #TYPE} is {@code True} while
 * the Query has pending questions and turns {@code False} (kept, so its {@code lastTransitionTime} says when the
 * last one was settled) once none is left. {@code status.conditions} is an atomic list and Ark's controller
 * re-reads it before writing its own types, so the patch carries the whole list as read, with only this entry
 * changed, under the resourceVersion it was read at. Pure: decided without a server.
 */
final class AwaitingHumanCondition {
  static final String TYPE = "ark.mckinsey.com/AwaitingHuman";
  static final String PENDING = "QuestionPending";
  static final String NONE_PENDING = "NoQuestionPending";
  /** Questions the message names one by one; the condition message is for people, not a full list. */
  private static final int NAMED = 10;

  private AwaitingHumanCondition() {
  }

  static boolean shows(QueryState query) {
    JsonObject condition = query.condition(TYPE);
    return condition != null && "True".equals(condition.getString("status"));
  }

  /**
   * The patch that makes the Query show {@code pending}, or nothing when it already does. A Query that never
   * showed the condition and has nothing pending gets none.
   *
   * @param pending the Query's pending questions, oldest first
   * @param now when a transition happens, for {@code lastTransitionTime}
   */
  static Optional<StatusPatch> wanted(QueryState query, List<Question> pending, Instant now) {
    JsonObject current = query.condition(TYPE);
    if (pending.isEmpty() && current == null) {
      return Optional.empty();
    }
    String status = pending.isEmpty() ? "False" : "True";
    boolean transition = current == null || !status.equals(current.getString("status"))
        || current.getString("lastTransitionTime") == null;
    JsonObject wanted = new JsonObject()
        .put("type", TYPE)
        .put("status", status)
        .put("reason", pending.isEmpty() ? NONE_PENDING : PENDING)
        .put("message", message(pending))
        .put("lastTransitionTime", transition
            ? now.truncatedTo(ChronoUnit.SECONDS).toString() : current.getString("lastTransitionTime"));
    if (query.generation() != null) {
      wanted.put("observedGeneration", query.generation());
    }
    if (current != null && same(current, wanted)) {
      return Optional.empty();
    }
    JsonArray conditions = new JsonArray();
    query.conditions().forEach(c -> conditions.add(TYPE.equals(c.getString("type")) ? wanted : c));
    if (current == null) {
      conditions.add(wanted);
    }
    return StatusPatch.patch(query, new JsonObject().put("conditions", conditions),
        pending.isEmpty() ? "no longer awaiting a person" : "awaiting a person: " + wanted.getString("message"));
  }

  private static String message(List<Question> pending) {
    if (pending.isEmpty()) {
      return "No question asked through the Ark Broker is pending";
    }
    String named = pending.stream().limit(NAMED).map(q -> q.id() + " for " + q.asked().recipient())
        .collect(Collectors.joining("; "));
    int more = pending.size() - NAMED;
    return (pending.size() == 1 ? "Waiting for an answer to question " : "Waiting for answers to "
        + pending.size() + " questions: ") + named + (more > 0 ? "; and " + more + " more" : "");
  }

  /** Compared as text: the API server may return a number another Java type than the one written. */
  private static boolean same(JsonObject current, JsonObject wanted) {
    return current.fieldNames().equals(wanted.fieldNames()) && wanted.fieldNames().stream()
        .allMatch(key -> Objects.equals(String.valueOf(current.getValue(key)), String.valueOf(wanted.getValue(key))));
  }
}
