package ark.broker.kube;

import ark.broker.question.QueryRef;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a Query shows now: the parts of its status this broker reads or writes.
 *
 * @param resourceVersion the Query's version, so a patch fails rather than overwrite a change made since
 * @param generation {@code metadata.generation}, or null where the API server set none
 * @param waitingFor null when the status has none
 * @param conditions {@code status.conditions} exactly as read, every writer's entries, so writing the list back
 *     keeps theirs
 */
record QueryState(QueryRef ref, String resourceVersion, Long generation, String phase, WaitingFor waitingFor,
                  List<JsonObject> conditions) {
  static final String WAITING = "waiting";
  static final String RUNNING = "running";
  /** Phases the Query's controller has settled for good; the broker never writes over them. */
  private static final Set<String> TERMINAL = Set.of("done", "error", "canceled");

  QueryState {
    conditions = List.copyOf(conditions);
  }

  /**
   * {@code status.waitingFor}; {@code since} is kept as the text the Query holds, so comparing never
   * depends on how a writer formatted the time.
   */
  record WaitingFor(String since, String questionId, String taskId, String toolCallId) {
  }

  boolean isTerminal() {
    return TERMINAL.contains(phase);
  }

  boolean isWaiting() {
    return WAITING.equals(phase);
  }

  /** The question the Query says it waits for, or null. */
  String shownQuestionId() {
    return waitingFor == null ? null : waitingFor.questionId();
  }

  /** The condition of type {@code type}, or null. */
  JsonObject condition(String type) {
    return conditions.stream().filter(c -> type.equals(c.getString("type"))).findFirst().orElse(null);
  }

  /** Reads a Query object as fabric8 returns it ({@code metadata} and the free-form {@code status} map). */
  static QueryState of(String namespace, String name, String resourceVersion, Long generation, Object status) {
    QueryRef ref = new QueryRef(namespace, name);
    if (!(status instanceof Map<?, ?> fields)) {
      return new QueryState(ref, resourceVersion, generation, null, null, List.of());
    }
    Object phase = fields.get("phase");
    WaitingFor waitingFor = null;
    if (fields.get("waitingFor") instanceof Map<?, ?> waiting) {
      Object question = waiting.get("question");
      waitingFor = new WaitingFor(text(waiting.get("since")),
          question instanceof Map<?, ?> q ? text(q.get("id")) : null,
          text(waiting.get("taskId")), text(waiting.get("toolCallId")));
    }
    List<JsonObject> conditions = new ArrayList<>();
    if (fields.get("conditions") instanceof List<?> list) {
      list.stream().filter(Map.class::isInstance).map(c -> JsonObject.mapFrom(c)).forEach(conditions::add);
    }
    return new QueryState(ref, resourceVersion, generation, text(phase), waitingFor, conditions);
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }
}
