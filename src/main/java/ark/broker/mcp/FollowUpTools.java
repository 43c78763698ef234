package ark.broker.mcp;

import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoreFailure;
import ark.broker.mcp.protocol.JsonRpcError;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.mcp.protocol.Tool;
import ark.broker.question.InvalidQuestionException;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionOrder;
import ark.broker.question.QuestionStatus;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

import java.util.List;

/**
 * The tools an agent follows its questions up with: {@code list_pending_questions} (its questions that
 * nobody has answered yet), {@code get_question} (a question's status and answer, optionally waiting a
 * bounded time for it: for clients without tasks, how to collect an answer after a call was cut off)
 * and {@code cancel_question} (withdraws a question nobody has answered yet).
 */
final class FollowUpTools {
  private static final int MAX_PENDING = 100;
  static final int MAX_WAIT_SECONDS = 300;
  private static final String NOT_A_QUESTION_ID = "questionId must be the id of a question (a string)";

  private final QuestionStore store;
  private final QuestionWatch watch;

  FollowUpTools(QuestionStore store, QuestionWatch watch) {
    this.store = store;
    this.watch = watch;
  }

  List<Tool> tools() {
    return List.of(pendingTool(), getTool(), cancelTool());
  }

  private Tool pendingTool() {
    ObjectNode definition = McpJson.object()
        .put("name", "list_pending_questions")
        .put("title", "List my pending questions")
        .put("description", "List the questions you asked that nobody has answered yet (oldest first, up to "
            + MAX_PENDING + "), with their ids, so you can check on them with get_question or withdraw them with "
            + "cancel_question.");
    ObjectNode schema = definition.putObject("inputSchema").put("type", "object");
    schema.putObject("properties").putObject("recipient").put("type", "string")
        .put("description", "Only questions for this person or team");
    schema.put("additionalProperties", false);
    ObjectNode output = definition.putObject("outputSchema").put("type", "object");
    output.putObject("properties").putObject("questions").put("type", "array").putObject("items").put("type", "object");
    output.set("required", McpJson.array().add("questions"));
    definition.putObject("annotations").put("readOnlyHint", true);
    return new Tool(definition, this::pending);
  }

  private Tool getTool() {
    ObjectNode definition = McpJson.object()
        .put("name", "get_question")
        .put("title", "Check a question")
        .put("description", "Get a question's status and, once answered, the answer. Give waitSeconds to wait up to "
            + "that long for an answer before returning (at most " + MAX_WAIT_SECONDS + "). Status is pending, "
            + "answered, cancelled or expired; only an answered question has a response.");
    ObjectNode schema = definition.putObject("inputSchema").put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("questionId").put("type", "string").put("description", "The id ask_question returned");
    properties.putObject("waitSeconds").put("type", "integer").put("minimum", 0).put("maximum", MAX_WAIT_SECONDS)
        .put("description", "How long to wait for an answer (default 0: return at once)");
    schema.set("required", McpJson.array().add("questionId"));
    schema.put("additionalProperties", false);
    definition.set("outputSchema", QuestionResults.outputSchema());
    definition.putObject("annotations").put("readOnlyHint", true);
    return new Tool(definition, this::get);
  }

  private Tool cancelTool() {
    ObjectNode definition = McpJson.object()
        .put("name", "cancel_question")
        .put("title", "Withdraw a question")
        .put("description", "Withdraw a question you no longer need answered. People stop seeing it as open, and a "
            + "call waiting for its answer ends with an error saying it was cancelled. A question already answered, "
            + "cancelled or expired cannot be cancelled.");
    ObjectNode schema = definition.putObject("inputSchema").put("type", "object");
    schema.putObject("properties").putObject("questionId").put("type", "string").put("description", "The question's id");
    schema.set("required", McpJson.array().add("questionId"));
    schema.put("additionalProperties", false);
    definition.set("outputSchema", QuestionResults.outputSchema());
    definition.putObject("annotations").put("destructiveHint", true).put("idempotentHint", false);
    return new Tool(definition, this::cancel);
  }

  private Future<ObjectNode> pending(RequestContext ctx, ObjectNode arguments) {
    QuestionFilter filter;
    Caller caller;
    try {
      String recipient = McpJson.text(arguments, "recipient");
      caller = Caller.of(ctx, arguments);
      filter = new QuestionFilter(QuestionStatus.PENDING, caller.agent(), recipient);
    } catch (JsonRpcError | InvalidQuestionException e) {
      // Arguments the model can correct; a caller the broker will not act for is refused as a protocol error.
      return Future.succeededFuture(QuestionResults.errorResult(e.getMessage()));
    }
    return store.list(caller.actor(), filter, QuestionOrder.OLDEST_FIRST, MAX_PENDING, null).map(page -> {
      ObjectNode structured = McpJson.object();
      structured.set("questions", QuestionResults.questionsJson(page.items()));
      return QuestionResults.structuredResult(structured);
    });
  }

  private Future<ObjectNode> get(RequestContext ctx, ObjectNode arguments) {
    String id = questionId(arguments);
    JsonNode wait = arguments.get("waitSeconds");
    if (id == null) {
      return Future.succeededFuture(QuestionResults.errorResult(NOT_A_QUESTION_ID));
    }
    if (wait != null && (!wait.isIntegralNumber() || wait.asLong() < 0 || wait.asLong() > MAX_WAIT_SECONDS)) {
      return Future.succeededFuture(QuestionResults.errorResult("waitSeconds must be a whole number from 0 to " + MAX_WAIT_SECONDS));
    }
    long waitMillis = wait == null ? 0 : wait.asLong() * 1000;
    if (waitMillis > 0) {
      ctx.stream();
    }
    return store.get(Caller.actorOf(ctx), id).compose(question -> {
      if (question.outcome().status().isFinal() || waitMillis == 0) {
        return Future.succeededFuture(QuestionResults.statusResult(question));
      }
      return watch.untilFinal(ctx, question.id(), waitMillis).map(QuestionResults::statusResult);
    }).recover(failure -> switch (StoreFailure.of(failure).reason()) {
      // Never asked, or removed after its retention: the store says which, for the model to read.
      case NOT_FOUND, GONE -> Future.succeededFuture(QuestionResults.errorResult(failure.getMessage()));
      default -> Future.failedFuture(failure);
    });
  }

  private Future<ObjectNode> cancel(RequestContext ctx, ObjectNode arguments) {
    String id = questionId(arguments);
    if (id == null) {
      return Future.succeededFuture(QuestionResults.errorResult(NOT_A_QUESTION_ID));
    }
    return store.cancel(Caller.actorOf(ctx), id, null)
        .map(QuestionResults::statusResult)
        // Nothing left to withdraw is for the model to read, not a protocol error.
        .recover(failure -> switch (StoreFailure.of(failure).reason()) {
          case NOT_FOUND, GONE, CONFLICT -> Future.succeededFuture(QuestionResults.errorResult(failure.getMessage()));
          default -> Future.failedFuture(failure);
        });
  }

  /** The questionId argument, or null when it is not a string. */
  private static String questionId(ObjectNode arguments) {
    JsonNode id = arguments.get("questionId");
    return id != null && id.isTextual() ? id.textValue() : null;
  }
}
