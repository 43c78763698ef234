package ark.broker.mcp;

import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoreFailure;
import ark.broker.mcp.protocol.JsonRpcError;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.mcp.protocol.Tool;
import ark.broker.question.InvalidQuestionException;
import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionRequests;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

/**
 * {@code ask_question}: asks a person and returns the answer. Called plainly, the call waits (with
 * progress notifications on its own stream, resumable if the stream is cut); called as a task, it
 * returns a task at once whose result is the answer. Either way the same tool call asked again finds
 * the question it already asked.
 */
record AskQuestionTool(QuestionStore store, QuestionWatch watch, QuestionTaskStore tasks, PlainCallWait plainWait,
                       Caller.Unattributed unattributed) implements Tool.Handler {
  static final String NAME = "ask_question";
  static final String RESUME_KIND = "ask";
  private static final String DESCRIPTION = """
      Ask a person a question and get their answer. Use it when you need a human decision, an approval, \
      or information you cannot find yourself. The answer may take minutes or hours; the call waits for it \
      (or, if your client supports MCP tasks, returns a task whose result is the answer). \
      Write `content` so it can be answered without other context, and say in `context` what depends on it. \
      Give `options` when the answer should be one of a few choices: the answer is then exactly one of them. \
      Give `responseSchema` (a flat JSON Schema object of string, number, integer, boolean and enum fields, as in MCP \
      elicitation) to get a form filled in: the result's `answer` is then an object of those fields, checked. \
      Use `kind: "approval"` to ask for approval of an action (say what and why in content and context, put the \
      call's arguments in `arguments`): the result's `decision` is {action: approved|rejected, reason, decidedBy}. \
      The result's `response` is the person's answer as text. If the question is cancelled or expires before anyone \
      answers, the result is an error that says so: do not treat that as an answer. \
      If nobody answers within a short wait (about %d seconds unless `waitSeconds` or your host says otherwise), the \
      result is {status: "pending", questionId}, which is no error: the question stays open, and get_question \
      (with waitSeconds) waits for its answer. \
      Repeating the same tool call (same query and tool call id) returns the same question instead of asking twice.""";


  Tool tool() {
    ObjectNode definition = McpJson.object()
        .put("name", NAME)
        .put("title", "Ask a person")
        .put("description", DESCRIPTION.formatted(plainWait.defaultSeconds()));
    definition.set("inputSchema", inputSchema());
    definition.set("outputSchema", QuestionResults.outputSchema());
    definition.putObject("execution").put("taskSupport", "optional");
    definition.putObject("annotations").put("readOnlyHint", false).put("destructiveHint", false)
        .put("idempotentHint", true).put("openWorldHint", true);
    return new Tool(definition, this);
  }

  @Override
  public Future<ObjectNode> call(RequestContext ctx, ObjectNode arguments) {
    NewQuestion request;
    long waitMillis;
    try {
      waitMillis = plainWait.millis(ctx, arguments);
      request = request(ctx, arguments);
    } catch (InvalidQuestionException e) {
      return Future.succeededFuture(QuestionResults.errorResult("The question was not asked: " + e.getMessage()));
    }
    return store.create(Caller.of(ctx, arguments).actor(), request).compose(created -> {
      Question question = created.question();
      if (question.outcome().status().isFinal()) {
        return Future.succeededFuture(QuestionResults.askResult(question));
      }
      ctx.resumable(RESUME_KIND, QuestionWatch.resumeState(question.id()));
      ctx.stream();
      return watch.untilFinal(ctx, question.id(), waitMillis)
          .map(latest -> QuestionResults.askResult(latest == null ? question : latest, plainWait.followUpSeconds(ctx)));
    }, failure -> StoreFailure.is(failure, StoreFailure.Reason.TOO_MANY_REQUESTS)
        // Over its budget: the agent itself should read when it may ask again.
        ? Future.succeededFuture(QuestionResults.errorResult("The question was not asked: " + failure.getMessage()))
        : Future.failedFuture(failure));
  }

  @Override
  public Future<ObjectNode> callAsTask(RequestContext ctx, ObjectNode arguments, ObjectNode task) {
    NewQuestion request;
    try {
      request = request(ctx, arguments);
    } catch (InvalidQuestionException e) {
      return Future.failedFuture(JsonRpcError.invalidParams("The question was not asked: " + e.getMessage()));
    }
    return store.create(Caller.of(ctx, arguments).actor(), request).map(created -> {
      Question question = created.question();
      ObjectNode result = McpJson.object();
      result.set("task", tasks.observed(ctx, question));
      result.putObject("_meta").put("io.modelcontextprotocol/model-immediate-response",
          "Asked " + question.asked().recipient() + " (question " + question.id() + "). The answer will be this task's result.");
      return result;
    });
  }

  /**
   * How a cut stream of a plain call is finished after GET + Last-Event-ID: it waits as a new call of the same host
   * would, as the host's own timeout runs on across the reconnection.
   */
  Future<JsonNode> resume(RequestContext ctx, JsonNode state) {
    String questionId = QuestionWatch.resumedQuestion(state);
    return watch.untilFinal(ctx, questionId, plainWait.millis(ctx, McpJson.object())).map(latest -> latest == null
        // The wait ended before the store said how the question stands.
        ? QuestionResults.errorResult("Question " + questionId + " could not be read in time; check it with get_question.")
        : QuestionResults.askResult(latest, plainWait.followUpSeconds(ctx)));
  }

  private NewQuestion request(RequestContext ctx, ObjectNode arguments) {
    Caller caller = Caller.of(ctx, arguments);
    ObjectNode question = arguments.deepCopy();
    question.put("sender", caller.agent());
    // A task's result waits as long as it takes: waitSeconds only bounds a plain call's wait.
    question.remove(java.util.List.of("query", "toolCallId", "waitSeconds"));
    if (caller.query() != null) {
      question.set("query", caller.query());
    }
    if (caller.toolCallId() != null) {
      question.put("toolCallId", caller.toolCallId());
    }
    NewQuestion request = QuestionRequests.create(question);
    unattributed.note(caller);
    return request;
  }

  private ObjectNode inputSchema() {
    ObjectNode schema = McpJson.object().put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("recipient").put("type", "string")
        .put("description", "Who should answer: ark://users/<name> or ark://teams/<name>");
    properties.putObject("content").put("type", "string").put("description", "The question itself");
    properties.putObject("context").put("type", "string").put("description", "Why you ask and what depends on the answer");
    ObjectNode options = properties.putObject("options").put("type", "array")
        .put("description", "The possible answers, if it is a choice; the answer will be exactly one of them");
    options.putObject("items").put("type", "string");
    ObjectNode channels = properties.putObject("channels").put("type", "array")
        .put("description", "Where to show the question besides the dashboard, such as slack or github");
    channels.putObject("items").put("type", "string");
    properties.putObject("priority").put("type", "string").put("description", "How urgent (default medium)")
        .set("enum", McpJson.array().add("high").add("medium").add("low"));
    properties.putObject("blocking").put("type", "boolean")
        .put("description", "Whether your work stops until the answer comes (default true)");
    properties.putObject("expiresAt").put("type", "string").put("format", "date-time")
        .put("description", "When to give up waiting (ISO-8601); or use ttlSeconds");
    properties.putObject("ttlSeconds").put("type", "integer").put("minimum", 1)
        .put("description", "Seconds until the question expires unanswered");
    properties.putObject("kind").put("type", "string")
        .put("description", "question (default): an answer; approval: approve or reject, with a reason")
        .set("enum", McpJson.array().add("question").add("approval"));
    properties.putObject("responseSchema").put("type", "object")
        .put("description", "A form for the answer: MCP elicitation's flat JSON Schema, {type: object, properties: "
            + "{name: {type: string|number|integer|boolean, title, description, default, minLength, maxLength, "
            + "format: email|uri|date|date-time, enum, oneOf: [{const, title}], minimum, maximum}}, required: [...]}; "
            + "the answer is then an object of those fields");
    properties.putObject("reasonRequired").put("type", "boolean")
        .put("description", "For kind approval: every decision must give a reason");
    properties.putObject("arguments").put("type", "object")
        .put("description", "For kind approval: the arguments of the call to approve; the approver may edit them");
    properties.putObject("escalation").put("type", "object")
        .put("description", "What happens if nobody answers: {remindAfterSeconds, escalateAfterSeconds, escalateTo: "
            + "[ark://teams/<name>...], onTimeout: \"expire\" (default) or a default answer such as {\"response\": "
            + "\"proceed\"} or {\"decision\": {\"action\": \"rejected\", \"reason\": ...}} given when expiresAt or "
            + "ttlSeconds passes; the result then says answeredOnTimeout}");
    properties.putObject("waitSeconds").put("type", "integer").put("minimum", 1).put("maximum", FollowUpTools.MAX_WAIT_SECONDS)
        .put("description", "Wait at most this long, then return {status: pending, questionId}; collect the answer "
            + "with get_question. Without it the call waits as long as your host allows (about "
            + plainWait.defaultSeconds() + " seconds unless it says otherwise)");
    properties.putObject("sender").put("type", "string")
        .put("description", "Who asks, as ark://agents/<name>; usually set by the host");
    ObjectNode query = properties.putObject("query").put("type", "object")
        .put("description", "The Kubernetes Query asking; usually set by the host");
    query.putObject("properties").<ObjectNode>set("namespace", McpJson.object().put("type", "string"))
        .set("name", McpJson.object().put("type", "string"));
    properties.putObject("toolCallId").put("type", "string")
        .put("description", "The LLM tool call id; with query it makes a repeated call find the same question");
    properties.putObject("idempotencyKey").put("type", "string")
        .put("description", "Asking again with the same key returns the same question");
    schema.set("required", McpJson.array().add("recipient").add("content"));
    schema.put("additionalProperties", false);
    return schema;
  }
}
