package ark.broker.mcp;

import ark.broker.bus.Failures;
import ark.broker.mcp.protocol.JsonRpcError;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.mcp.protocol.TaskStore;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

/**
 * MCP tasks backed by questions: the task id is the question id and the task's state is read from
 * the question, so a task outlives the connection, the session and the broker process that created it.
 */
final class QuestionTaskStore implements TaskStore {
  static final String RESUME_KIND = "task-result";
  private static final int PAGE = 100;

  private final QuestionBus questions;
  private final QuestionWatch watch;
  private final TaskObservers observers;
  private final long pollIntervalMillis;

  QuestionTaskStore(QuestionBus questions, QuestionWatch watch, TaskObservers observers, long pollIntervalMillis) {
    this.questions = questions;
    this.watch = watch;
    this.observers = observers;
    this.pollIntervalMillis = pollIntervalMillis;
  }

  @Override
  public Future<ObjectNode> get(RequestContext ctx, String taskId) {
    return existing(taskId).map(question -> {
      observers.observe(taskId, ctx.session().id());
      return QuestionResults.task(question, pollIntervalMillis);
    });
  }

  @Override
  public Future<ObjectNode> result(RequestContext ctx, String taskId) {
    return existing(taskId).compose(question -> {
      if (question.status().isFinal()) {
        return Future.succeededFuture(QuestionResults.withRelatedTask(QuestionResults.askResult(question), taskId));
      }
      ctx.resumable(RESUME_KIND, McpJson.object().put("q", taskId));
      ctx.stream();
      return untilFinal(ctx, taskId);
    });
  }

  /** Finishes a {@code tasks/result} whose stream was cut, after GET + Last-Event-ID. */
  Future<JsonNode> resume(RequestContext ctx, JsonNode state) {
    return untilFinal(ctx, McpJson.requireText(state, "q")).map(JsonNode.class::cast);
  }

  @Override
  public Future<ObjectNode> list(RequestContext ctx, String cursor) {
    QuestionFilter mine = new QuestionFilter(null, Caller.of(ctx).agent(), null);
    return questions.list(mine, PAGE, cursor)
        .recover(failure -> Future.failedFuture(Failures.codeOf(failure) == Failures.BAD_REQUEST
            ? JsonRpcError.invalidParams("invalid cursor") : QuestionBus.asRpcError(failure)))
        .map(page -> {
          ObjectNode result = McpJson.object();
          ArrayNode tasks = result.putArray("tasks");
          page.items().forEach(question -> tasks.add(QuestionResults.task(question, pollIntervalMillis)));
          if (page.continueToken() != null) {
            result.put("nextCursor", page.continueToken());
          }
          return result;
        });
  }

  @Override
  public Future<ObjectNode> cancel(RequestContext ctx, String taskId) {
    return existing(taskId).compose(question -> {
      if (question.status().isFinal()) {
        return Future.failedFuture(alreadyTerminal(question));
      }
      return questions.cancel(taskId)
          .recover(failure -> Failures.codeOf(failure) == Failures.CONFLICT
              ? existing(taskId).compose(now -> Future.failedFuture(alreadyTerminal(now)))
              : Future.failedFuture(QuestionBus.asRpcError(failure)))
          .map(cancelled -> QuestionResults.task(cancelled, pollIntervalMillis));
    });
  }

  private Future<ObjectNode> untilFinal(RequestContext ctx, String taskId) {
    return watch.untilFinal(ctx, taskId, -1)
        .map(question -> QuestionResults.withRelatedTask(QuestionResults.askResult(question), taskId));
  }

  private Future<Question> existing(String taskId) {
    return questions.find(taskId).recover(failure -> Future.failedFuture(QuestionBus.asRpcError(failure)))
        .compose(question -> question == null
            ? Future.failedFuture(JsonRpcError.invalidParams("Failed to retrieve task: Task not found: " + taskId))
            : Future.succeededFuture(question));
  }

  private JsonRpcError alreadyTerminal(Question question) {
    return JsonRpcError.invalidParams("Cannot cancel task: already in terminal status '"
        + QuestionResults.task(question, pollIntervalMillis).get("status").asText() + "'");
  }
}
