package ark.broker.mcp;

import ark.broker.bus.QuestionRetention;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoreFailure;
import ark.broker.mcp.protocol.JsonRpcError;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.McpServer;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.mcp.protocol.TaskStore;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * MCP tasks backed by questions: the task id is the question id and the task's state is read from
 * the question, so a task outlives the connection, the session and the broker process that created it.
 */
final class QuestionTaskStore implements TaskStore {
  static final String RESUME_KIND = "task-result";
  private static final int PAGE = 100;

  private final QuestionStore store;
  private final QuestionWatch watch;
  private final McpServer server;
  private final long pollIntervalMillis;
  private final QuestionRetention retention;
  /**
   * Which sessions on this replica asked for or looked at which task, so they get
   * {@code notifications/tasks/status} when it changes. Best effort, as the spec allows: clients poll
   * {@code tasks/get} and must not rely on these.
   */
  private final Map<String, Set<String>> observers = new HashMap<>();

  /** @param retention how long a settled question, and so its task, is kept: the task's {@code ttl} */
  QuestionTaskStore(QuestionStore store, QuestionWatch watch, McpServer server, long pollIntervalMillis,
                    QuestionRetention retention) {
    this.store = store;
    this.watch = watch;
    this.server = server;
    this.pollIntervalMillis = pollIntervalMillis;
    this.retention = retention;
  }

  @Override
  public Future<ObjectNode> get(RequestContext ctx, String taskId) {
    return existing(ctx, taskId).map(question -> observed(ctx, question));
  }

  @Override
  public Future<ObjectNode> result(RequestContext ctx, String taskId) {
    return existing(ctx, taskId).compose(question -> {
      if (question.outcome().status().isFinal()) {
        return Future.succeededFuture(QuestionResults.withRelatedTask(QuestionResults.askResult(question), taskId));
      }
      ctx.resumable(RESUME_KIND, QuestionWatch.resumeState(taskId));
      ctx.stream();
      return untilFinal(ctx, taskId);
    });
  }

  /** Finishes a {@code tasks/result} whose stream was cut, after GET + Last-Event-ID. */
  Future<JsonNode> resume(RequestContext ctx, JsonNode state) {
    return untilFinal(ctx, QuestionWatch.resumedQuestion(state)).map(JsonNode.class::cast);
  }

  @Override
  public Future<ObjectNode> list(RequestContext ctx, String cursor) {
    QuestionFilter mine = new QuestionFilter(null, Caller.of(ctx).agent(), null);
    return store.list(Caller.actorOf(ctx), mine, QuestionOrder.OLDEST_FIRST, PAGE, cursor)
        .recover(failure -> Future.failedFuture(StoreFailure.is(failure, StoreFailure.Reason.INVALID)
            ? JsonRpcError.invalidParams("invalid cursor") : failure))
        .map(page -> {
          ObjectNode result = McpJson.object();
          ArrayNode tasks = result.putArray("tasks");
          page.items().forEach(question -> tasks.add(task(question)));
          if (page.continueToken() != null) {
            result.put("nextCursor", page.continueToken());
          }
          return result;
        });
  }

  @Override
  public Future<ObjectNode> cancel(RequestContext ctx, String taskId) {
    return existing(ctx, taskId).compose(question -> {
      if (question.outcome().status().isFinal()) {
        return Future.failedFuture(alreadyTerminal(question));
      }
      return store.cancel(Caller.actorOf(ctx), taskId, null)
          .recover(failure -> StoreFailure.is(failure, StoreFailure.Reason.CONFLICT)
              ? existing(ctx, taskId).compose(now -> Future.failedFuture(alreadyTerminal(now)))
              : Future.failedFuture(failure))
          .map(this::task);
    });
  }

  /** The task of the question, which the asking session now hears about when it changes. */
  ObjectNode observed(RequestContext ctx, Question question) {
    observers.computeIfAbsent(question.id(), id -> new LinkedHashSet<>()).add(ctx.session().id());
    return task(question);
  }

  /** Tells the sessions observing the question's task, on this replica, that it changed. */
  void changed(Question question) {
    Set<String> sessions = question.outcome().status().isFinal()
        ? observers.remove(question.id()) : observers.get(question.id());
    if (sessions != null) {
      for (String session : sessions) {
        server.notifySession(session, "notifications/tasks/status", task(question));
      }
    }
  }

  private ObjectNode task(Question question) {
    return QuestionResults.task(question, pollIntervalMillis, retention.removalOf(question));
  }

  private Future<ObjectNode> untilFinal(RequestContext ctx, String taskId) {
    return watch.untilFinal(ctx, taskId, -1)
        .map(question -> QuestionResults.withRelatedTask(QuestionResults.askResult(question), taskId));
  }

  /** The task's question; a task not found (never there, or removed after its retention) is an error saying which. */
  private Future<Question> existing(RequestContext ctx, String taskId) {
    return store.get(Caller.actorOf(ctx), taskId).recover(failure -> {
      StoreFailure refused = StoreFailure.of(failure);
      return refused.reason() == StoreFailure.Reason.NOT_FOUND || refused.reason() == StoreFailure.Reason.GONE
          ? Future.failedFuture(JsonRpcError.invalidParams("Failed to retrieve task: Task not found: " + taskId + " ("
              + refused.getMessage() + ")"))
          : Future.failedFuture(failure);
    });
  }

  private JsonRpcError alreadyTerminal(Question question) {
    return JsonRpcError.invalidParams("Cannot cancel task: already in terminal status '"
        + task(question).get("status").asText() + "'");
  }
}
