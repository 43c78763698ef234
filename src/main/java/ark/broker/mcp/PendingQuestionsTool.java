package ark.broker.mcp;

import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.mcp.protocol.Tool;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionStatus;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

/** {@code list_pending_questions}: the calling agent's questions that nobody has answered yet. */
final class PendingQuestionsTool implements Tool.Handler {
  private static final int MAX = 100;
  private final QuestionBus questions;

  PendingQuestionsTool(QuestionBus questions) {
    this.questions = questions;
  }

  Tool tool() {
    ObjectNode definition = McpJson.object()
        .put("name", "list_pending_questions")
        .put("title", "List my pending questions")
        .put("description", "List the questions you asked that nobody has answered yet (oldest first, up to "
            + MAX + "), with their ids, so you can check on them with get_question or withdraw them with cancel_question.");
    ObjectNode schema = definition.putObject("inputSchema").put("type", "object");
    schema.putObject("properties").putObject("recipient").put("type", "string")
        .put("description", "Only questions for this person or team");
    schema.put("additionalProperties", false);
    ObjectNode output = definition.putObject("outputSchema").put("type", "object");
    output.putObject("properties").putObject("questions").put("type", "array").putObject("items").put("type", "object");
    output.set("required", McpJson.array().add("questions"));
    definition.putObject("annotations").put("readOnlyHint", true);
    return new Tool(definition, this);
  }

  @Override
  public Future<ObjectNode> call(RequestContext ctx, ObjectNode arguments) {
    String recipient;
    QuestionFilter filter;
    try {
      recipient = McpJson.text(arguments, "recipient");
      filter = new QuestionFilter(QuestionStatus.PENDING, Caller.of(ctx, arguments).agent(), recipient);
    } catch (RuntimeException e) {
      return Future.succeededFuture(QuestionResults.errorResult(e.getMessage()));
    }
    return questions.list(filter, MAX, null)
        .recover(failure -> Future.failedFuture(QuestionBus.asRpcError(failure)))
        .map(page -> {
          ObjectNode structured = McpJson.object();
          structured.set("questions", QuestionResults.questionsJson(page.items()));
          return QuestionResults.toolResult(McpJson.write(structured), structured, false);
        });
  }

}
