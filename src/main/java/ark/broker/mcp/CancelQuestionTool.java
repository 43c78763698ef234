package ark.broker.mcp;

import ark.broker.bus.Failures;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.mcp.protocol.Tool;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

/** {@code cancel_question}: withdraws a question nobody has answered yet. */
final class CancelQuestionTool implements Tool.Handler {
  private final QuestionBus questions;

  CancelQuestionTool(QuestionBus questions) {
    this.questions = questions;
  }

  Tool tool() {
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
    return new Tool(definition, this);
  }

  @Override
  public Future<ObjectNode> call(RequestContext ctx, ObjectNode arguments) {
    JsonNode id = arguments.get("questionId");
    if (id == null || !id.isTextual()) {
      return Future.succeededFuture(QuestionResults.errorResult("questionId must be the id of a question (a string)"));
    }
    return questions.cancel(id.textValue())
        .map(cancelled -> {
          ObjectNode structured = QuestionResults.structured(cancelled);
          return QuestionResults.toolResult(McpJson.write(structured), structured, false);
        })
        .recover(failure -> {
          int code = Failures.codeOf(failure);
          if (code == Failures.NOT_FOUND || code == Failures.CONFLICT) {
            return Future.succeededFuture(QuestionResults.errorResult(failure.getMessage()));
          }
          return Future.failedFuture(QuestionBus.asRpcError(failure));
        });
  }
}
