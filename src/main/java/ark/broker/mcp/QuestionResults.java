package ark.broker.mcp;

import ark.broker.mcp.protocol.McpJson;
import ark.broker.question.Question;
import ark.broker.question.QuestionStatus;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Duration;
import java.time.Instant;

/** How questions look to MCP clients: tool results, tasks, and the schema of both. */
final class QuestionResults {
  static final String RELATED_TASK = "io.modelcontextprotocol/related-task";

  private QuestionResults() {
  }

  /** The {@code outputSchema} of ask_question and get_question: what {@link #structured} returns. */
  static ObjectNode outputSchema() {
    ObjectNode schema = McpJson.object().put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    properties.putObject("questionId").put("type", "string").put("description", "The question's id (also the task id)");
    properties.putObject("status").put("type", "string").put("description", "pending, answered, cancelled or expired")
        .set("enum", McpJson.array().add("pending").add("answered").add("cancelled").add("expired"));
    properties.putObject("response").put("type", "string").put("description", "The person's answer as text, when answered");
    properties.putObject("answer").put("type", "object")
        .put("description", "For a question with a responseSchema: the answer, an object of the schema's fields");
    ObjectNode decision = properties.putObject("decision").put("type", "object")
        .put("description", "For kind approval: the person's decision");
    ObjectNode decisionFields = decision.putObject("properties");
    decisionFields.putObject("action").put("type", "string").set("enum", McpJson.array().add("approved").add("rejected"));
    decisionFields.putObject("reason").put("type", "string").put("description", "Why, in their words, if they said");
    decisionFields.putObject("arguments").put("type", "object").put("description", "The arguments they approved, where they edited them");
    decisionFields.putObject("decidedBy").put("type", "string");
    decisionFields.putObject("decidedAt").put("type", "string").put("format", "date-time");
    decision.set("required", McpJson.array().add("action").add("decidedAt"));
    properties.putObject("answeredBy").put("type", "string").put("description", "Who answered, as ark://users/<name>");
    properties.putObject("answeredAt").put("type", "string").put("format", "date-time");
    properties.putObject("answeredOnTimeout").put("type", "boolean")
        .put("description", "True when nobody answered in time and the question's escalation.onTimeout default answered it");
    schema.set("required", McpJson.array().add("questionId").add("status"));
    return schema;
  }

  static ObjectNode structured(Question question) {
    ObjectNode structured = McpJson.object().put("questionId", question.id()).put("status", question.outcome().status().wireName());
    if (question.outcome().response() != null) {
      structured.put("response", question.outcome().response());
    }
    if (question.outcome().answer() != null) {
      structured.set("answer", question.outcome().answer());
    }
    if (question.outcome().decision() != null) {
      structured.set("decision", QuestionJson.MAPPER.valueToTree(question.outcome().decision()));
    }
    if (question.outcome().answeredBy() != null) {
      structured.put("answeredBy", question.outcome().answeredBy());
    }
    if (question.outcome().answeredAt() != null) {
      structured.put("answeredAt", question.outcome().answeredAt().toString());
    }
    if (question.outcome().answeredOnTimeout()) {
      structured.put("answeredOnTimeout", true);
    }
    return structured;
  }

  /**
   * The result of asking: the answer, or an {@code isError} result that says the question was
   * cancelled or expired, which an agent must not mistake for a person's answer.
   */
  static ObjectNode askResult(Question question) {
    return askResult(question, FollowUpTools.MAX_WAIT_SECONDS);
  }

  /**
   * The same, for a call that may end before the answer: a pending question's result says how to wait for it,
   * with get_question waiting {@code followUpSeconds} at a time.
   */
  static ObjectNode askResult(Question question, long followUpSeconds) {
    ObjectNode structured = structured(question);
    String text = switch (question.outcome().status()) {
      case CANCELLED -> "The question " + question.id() + " was cancelled before anyone answered it.";
      case EXPIRED -> "The question " + question.id() + " expired at " + question.followUps().expiresAt() + " without an answer.";
      case PENDING -> "Nobody has answered question " + question.id() + " yet; it stays open. To wait for the answer, "
          + "call get_question with " + McpJson.write(McpJson.object().put("questionId", question.id())
              .put("waitSeconds", followUpSeconds)) + ", again while its status is pending. " + McpJson.write(structured);
      default -> (question.outcome().answeredOnTimeout() ? "Nobody answered question " + question.id() + " by " + question.followUps().expiresAt()
          + "; its default answer (escalation.onTimeout) applies: " : "") + McpJson.write(structured);
    };
    return toolResult(text, structured, question.outcome().status() == QuestionStatus.CANCELLED || question.outcome().status() == QuestionStatus.EXPIRED);
  }

  /** get_question's and cancel_question's result: the question's status, and its answer once answered. */
  static ObjectNode statusResult(Question question) {
    return structuredResult(structured(question));
  }

  /** A successful result whose text is its structured content. */
  static ObjectNode structuredResult(ObjectNode structured) {
    return toolResult(McpJson.write(structured), structured, false);
  }

  static ObjectNode toolResult(String text, JsonNode structured, boolean isError) {
    ObjectNode result = McpJson.object();
    result.putArray("content").addObject().put("type", "text").put("text", text);
    if (structured != null) {
      result.set("structuredContent", structured);
    }
    result.put("isError", isError);
    return result;
  }

  static ObjectNode errorResult(String text) {
    return toolResult(text, null, true);
  }

  /** The MCP Task that stands for a question: the task id is the question id. */
  /** @param removal when the question leaves the store (its retention ends), or null while pending or kept for ever */
  static ObjectNode task(Question question, long pollIntervalMillis, Instant removal) {
    ObjectNode task = McpJson.object()
        .put("taskId", question.id())
        .put("status", switch (question.outcome().status()) {
          case PENDING -> "working";
          case ANSWERED -> "completed";
          case CANCELLED -> "cancelled";
          case EXPIRED -> "failed";
        })
        .put("statusMessage", statusMessage(question))
        .put("createdAt", question.createdAt().toString())
        .put("lastUpdatedAt", question.updatedAt().toString());
    // A pending question is never removed: a null ttl means unlimited. A settled one goes with its retention.
    if (removal == null) {
      task.set("ttl", NullNode.getInstance());
    } else {
      task.put("ttl", Duration.between(question.createdAt(), removal).toMillis());
    }
    if (!question.outcome().status().isFinal()) {
      task.put("pollInterval", pollIntervalMillis);
    }
    return task;
  }

  static ObjectNode withRelatedTask(ObjectNode result, String taskId) {
    ObjectNode copy = result.deepCopy();
    copy.putObject("_meta").putObject(RELATED_TASK).put("taskId", taskId);
    return copy;
  }

  static ObjectNode questionJson(Question question) {
    return QuestionJson.MAPPER.valueToTree(question);
  }

  static ArrayNode questionsJson(Iterable<Question> questions) {
    ArrayNode array = McpJson.array();
    questions.forEach(question -> array.add(questionJson(question)));
    return array;
  }

  private static String statusMessage(Question question) {
    return switch (question.outcome().status()) {
      case PENDING -> question.deliveries().isEmpty()
          ? "Waiting for an answer from " + String.join(", ", question.recipients())
          : "Waiting for an answer from " + String.join(", ", question.recipients()) + " (delivered to "
              + String.join(", ", question.deliveries().stream()
                  .map(d -> d.label() != null ? d.label() : d.channel()).toList()) + ")";
      case ANSWERED -> question.outcome().answeredOnTimeout() ? "Answered by default: nobody answered in time"
          : "Answered" + (question.outcome().answeredBy() == null ? "" : " by " + question.outcome().answeredBy());
      case CANCELLED -> "The question was cancelled before anyone answered it";
      case EXPIRED -> "The question expired at " + question.followUps().expiresAt() + " without an answer";
    };
  }
}
