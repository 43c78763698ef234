package ark.broker.question;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Reads untrusted JSON (a REST body or MCP tool arguments) into domain requests. Every mistake is
 * named precisely: a field of the wrong type, an unknown field (usually a typo), a missing field.
 */
public final class QuestionRequests {
  public static final Set<String> CREATE_FIELDS = Set.of("sender", "recipient", "channels", "content",
      "context", "options", "priority", "blocking", "kind", "responseSchema", "reasonRequired", "arguments", "expiresAt",
      "ttlSeconds", "escalation", "query", "toolCallId", "idempotencyKey");
  private static final Set<String> ANSWER_FIELDS = Set.of("response", "answer", "decision", "answeredBy");
  private static final Set<String> DECISION_FIELDS = Set.of("action", "reason", "arguments");
  private static final Set<String> QUERY_FIELDS = Set.of("namespace", "name");

  private QuestionRequests() {
  }

  public static NewQuestion create(JsonNode body) {
    requireObject("request body", body, CREATE_FIELDS);
    return new NewQuestion(
        text(body, "sender"),
        text(body, "recipient"),
        textList(body, "channels"),
        text(body, "content"),
        text(body, "context"),
        textList(body, "options"),
        body.has("priority") ? Priority.parse(text(body, "priority")) : null,
        bool(body, "blocking", true),
        body.has("kind") && !body.get("kind").isNull() ? QuestionKind.parse(text(body, "kind")) : null,
        body.has("responseSchema") && !body.get("responseSchema").isNull() ? ResponseSchema.parse(body.get("responseSchema")) : null,
        bool(body, "reasonRequired", false),
        object(body, "arguments"),
        instant(body, "expiresAt"),
        wholeNumber(body, "ttlSeconds"),
        present(body, "escalation") ? Escalation.parse(body.get("escalation")) : null,
        query(body.get("query")),
        text(body, "toolCallId"),
        text(body, "idempotencyKey"));
  }

  /** A body with exactly one of {@code response} (text), {@code answer} (a form's fields) or {@code decision}. */
  public static Answer answer(JsonNode body) {
    requireObject("request body", body, ANSWER_FIELDS);
    int given = (present(body, "response") ? 1 : 0) + (present(body, "answer") ? 1 : 0) + (present(body, "decision") ? 1 : 0);
    if (given != 1) {
      throw new InvalidQuestionException((given == 0 ? "response is required: give" : "give only") + " one of response "
          + "(text), answer (an object, for a question with a responseSchema) or decision ({action, reason}, for an approval)");
    }
    Reply reply;
    if (present(body, "answer")) {
      reply = new Reply.Form(body.get("answer"));
    } else if (present(body, "decision")) {
      reply = decision(body.get("decision"));
    } else {
      reply = new Reply.Text(text(body, "response"));
    }
    return new Answer(reply, text(body, "answeredBy"));
  }

  /** A decision object, {@code {"action": "approved"|"rejected", "reason": ..., "arguments": {...}}}. */
  public static Reply.Verdict decision(JsonNode node) {
    requireObject("decision", node, DECISION_FIELDS);
    String action = text(node, "action");
    if (action == null) {
      throw new InvalidQuestionException("decision.action is required: approved or rejected");
    }
    return new Reply.Verdict(Decision.Action.parse(action), text(node, "reason"), node.get("arguments"));
  }

  /** A person's answer to a question, before the question checks it. */
  public record Answer(Reply reply, String answeredBy) {
  }

  private static boolean present(JsonNode body, String field) {
    return body.has(field) && !body.get(field).isNull();
  }

  private static ObjectNode object(JsonNode parent, String field) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isObject()) {
      throw new InvalidQuestionException(field + " must be a JSON object");
    }
    return (ObjectNode) node;
  }

  static void requireObject(String what, JsonNode node, Set<String> allowed) {
    if (node == null || !node.isObject()) {
      throw new InvalidQuestionException(what + " must be a JSON object");
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw new InvalidQuestionException("unknown field '" + name + "' in " + what + "; allowed: " + allowed.stream().sorted().toList());
      }
    }
  }

  private static QueryRef query(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    requireObject("query", node, QUERY_FIELDS);
    return new QueryRef(text(node, "namespace"), text(node, "name"));
  }

  static String text(JsonNode parent, String field) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      throw new InvalidQuestionException(field + " must be a string");
    }
    return node.textValue();
  }

  static List<String> textList(JsonNode parent, String field) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isArray()) {
      throw new InvalidQuestionException(field + " must be an array of strings");
    }
    List<String> values = new ArrayList<>(node.size());
    for (JsonNode element : node) {
      if (!element.isTextual()) {
        throw new InvalidQuestionException(field + " must be an array of strings");
      }
      values.add(element.textValue());
    }
    return values;
  }

  private static boolean bool(JsonNode parent, String field, boolean fallback) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return fallback;
    }
    if (!node.isBoolean()) {
      throw new InvalidQuestionException(field + " must be true or false");
    }
    return node.booleanValue();
  }

  static Long wholeNumber(JsonNode parent, String field) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToLong()) {
      throw new InvalidQuestionException(field + " must be a whole number");
    }
    return node.longValue();
  }

  private static Instant instant(JsonNode parent, String field) {
    String value = text(parent, field);
    if (value == null) {
      return null;
    }
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      throw new InvalidQuestionException(field + " must be an ISO-8601 instant such as 2030-01-31T12:00:00Z");
    }
  }
}
