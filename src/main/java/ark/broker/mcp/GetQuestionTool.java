package ark.broker.mcp;

import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.mcp.protocol.Tool;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

/**
 * {@code get_question}: a question's status and answer, optionally waiting a bounded time for it to
 * be answered. For clients without tasks, this is how to collect an answer after a call was cut off.
 */
final class GetQuestionTool implements Tool.Handler {
  static final int MAX_WAIT_SECONDS = 300;
  private final QuestionBus questions;
  private final QuestionWatch watch;

  GetQuestionTool(QuestionBus questions, QuestionWatch watch) {
    this.questions = questions;
    this.watch = watch;
  }

  Tool tool() {
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
    return new Tool(definition, this);
  }

  @Override
  public Future<ObjectNode> call(RequestContext ctx, ObjectNode arguments) {
    JsonNode id = arguments.get("questionId");
    JsonNode wait = arguments.get("waitSeconds");
    if (id == null || !id.isTextual()) {
      return Future.succeededFuture(QuestionResults.errorResult("questionId must be the id of a question (a string)"));
    }
    if (wait != null && (!wait.isIntegralNumber() || wait.asLong() < 0 || wait.asLong() > MAX_WAIT_SECONDS)) {
      return Future.succeededFuture(QuestionResults.errorResult("waitSeconds must be a whole number from 0 to " + MAX_WAIT_SECONDS));
    }
    long waitMillis = wait == null ? 0 : wait.asLong() * 1000;
    if (waitMillis > 0) {
      ctx.stream();
    }
    return questions.find(id.textValue()).compose(question -> {
      if (question == null) {
        return Future.succeededFuture(QuestionResults.errorResult("There is no question " + id.textValue()));
      }
      if (question.status().isFinal() || waitMillis == 0) {
        return Future.succeededFuture(result(question));
      }
      return watch.untilFinal(ctx, question.id(), waitMillis).map(GetQuestionTool::result);
    }, failure -> Future.failedFuture(QuestionBus.asRpcError(failure)));
  }

  private static ObjectNode result(ark.broker.question.Question question) {
    ObjectNode structured = QuestionResults.structured(question);
    return QuestionResults.toolResult(McpJson.write(structured), structured, false);
  }
}
