package ark.broker.kube;

import ark.broker.kube.ApprovalTask.TaskRef;
import ark.broker.kube.ApprovalTask.ToolCall;
import ark.broker.question.Decision;
import ark.broker.question.NewQuestion;
import ark.broker.question.Priority;
import ark.broker.question.QueryRef;
import ark.broker.question.Question;
import ark.broker.question.QuestionKind;

/**
 * The question an approval task becomes, and the way back. Its idempotency key names the task (namespace, name
 * and uid), so its id follows from the task: a restart, a new worker or a second replica finds the question
 * already asked instead of asking again, and a question names the task it is about even after the task is gone.
 */
final class ApprovalQuestion {
  /** The answer that approved a question asked before approvals were their own kind (options approve, reject). */
  private static final String APPROVE = "approve";
  private static final String KEY_PREFIX = "a2atask/";
  /** Arguments longer than this are cut in the context: a person reads them, the task keeps them whole. */
  private static final int ARGUMENTS_SHOWN = 2_000;

  private ApprovalQuestion() {
  }

  static NewQuestion of(ApprovalTask task, ApprovalRouting.Route route) {
    String asker = task.agent() == null ? "An agent" : "Agent " + task.agent();
    String content = asker + " wants to call " + task.toolNames() + (task.queryName() == null ? ""
        : " for Query " + task.queryNamespace() + "/" + task.queryName()) + ". Approve or reject?";
    StringBuilder context = new StringBuilder("Ark A2ATask ").append(task.ref()).append(" waits for a decision.\n");
    for (ToolCall call : task.toolCalls()) {
      String arguments = call.arguments() == null ? "" : call.arguments();
      context.append("\nTool ").append(call.name()).append(" with arguments: ")
          .append(arguments.length() > ARGUMENTS_SHOWN ? arguments.substring(0, ARGUMENTS_SHOWN) + " [...]" : arguments);
    }
    if (task.reasoning() != null) {
      context.append("\n\nThe agent says: ").append(task.reasoning());
    }
    if (task.timeout() != null) {
      context.append("\n\nArk decides by itself after ").append(task.timeout())
          .append(" (").append(task.onTimeout() == null || task.onTimeout().isEmpty() ? "reject" : task.onTimeout()).append(").");
    }
    String sender = task.agent() == null ? null : "ark://agents/" + task.ref().namespace() + "/" + task.agent();
    QueryRef query = task.queryName() == null ? null : new QueryRef(task.queryNamespace(), task.queryName());
    return new NewQuestion(sender, route.recipient(), route.channels(), content, context.toString(), null,
        Priority.HIGH, true, QuestionKind.APPROVAL, null, false, null, null, null, null, query, null, key(task));
  }

  /** The task a question asks about, or null for a question that is not an approval. */
  static TaskRef taskOf(Question question) {
    String key = question.origin().idempotencyKey();
    if (key == null || !key.startsWith(KEY_PREFIX)) {
      return null;
    }
    String[] parts = key.substring(KEY_PREFIX.length()).split("/");
    return parts.length == 3 ? new TaskRef(parts[0], parts[1]) : null;
  }

  /** Whether the question asks about this very task, not an earlier one of the same name. */
  static boolean isAbout(Question question, ApprovalTask task) {
    return key(task).equals(question.origin().idempotencyKey());
  }

  /**
   * What ark-api writes for the answer: {@code approved} or {@code rejected}. A question asked before approvals had
   * their own kind is still pending after an upgrade, and its answer is the option chosen.
   */
  static String decision(Question answered) {
    boolean approved = answered.outcome().decision() != null ? answered.outcome().decision().action() == Decision.Action.APPROVED
        : APPROVE.equals(answered.outcome().response());
    return approved ? ApprovalTask.APPROVED : ApprovalTask.REJECTED;
  }

  private static String key(ApprovalTask task) {
    return KEY_PREFIX + task.ref().namespace() + "/" + task.ref().name() + "/" + task.uid();
  }
}
