package ark.broker.kube;

import ark.broker.question.QueryRef;

import java.util.Map;
import java.util.Set;

/**
 * What a Query shows now: the parts of its status this broker reads or writes.
 *
 * @param resourceVersion the Query's version, so a patch fails rather than overwrite a change made since
 * @param waitingFor null when the status has none
 */
record QueryState(QueryRef ref, String resourceVersion, String phase, WaitingFor waitingFor) {
  static final String WAITING = "waiting";
  static final String RUNNING = "running";
  /** Phases the Query's controller has settled for good; the broker never writes over them. */
  private static final Set<String> TERMINAL = Set.of("done", "error", "canceled");

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

  /** Reads a Query object as fabric8 returns it ({@code metadata} and the free-form {@code status} map). */
  static QueryState of(String namespace, String name, String resourceVersion, Object status) {
    QueryRef ref = new QueryRef(namespace, name);
    if (!(status instanceof Map<?, ?> fields)) {
      return new QueryState(ref, resourceVersion, null, null);
    }
    Object phase = fields.get("phase");
    WaitingFor waitingFor = null;
    if (fields.get("waitingFor") instanceof Map<?, ?> waiting) {
      Object question = waiting.get("question");
      waitingFor = new WaitingFor(text(waiting.get("since")),
          question instanceof Map<?, ?> q ? text(q.get("id")) : null,
          text(waiting.get("taskId")), text(waiting.get("toolCallId")));
    }
    return new QueryState(ref, resourceVersion, text(phase), waitingFor);
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }
}
