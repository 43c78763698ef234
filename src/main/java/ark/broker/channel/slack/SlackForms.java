package ark.broker.channel.slack;

import ark.broker.channel.InboundProblem;
import ark.broker.question.Decision;
import ark.broker.question.Question;
import ark.broker.question.Reply;
import ark.broker.question.ResponseSchema;
import ark.broker.question.ResponseSchema.Field;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.Iterator;
import java.util.Map;

/**
 * The modals of typed questions, and what their submissions say. A form question's modal has one input a field
 * of its responseSchema (text and numbers typed, choices picked from a select, booleans a checkbox); an
 * approval's modal, opened by its Approve or Reject button, asks for the reason (and shows the arguments, to edit,
 * where the question offers them). The question checks the submission; a refusal is shown under the input of the
 * field it names.
 */
final class SlackForms {
  static final String FIELD_BLOCK = "ark_field|";
  static final String VALUE = "ark_value";
  static final String REASON_BLOCK = "ark_reason";
  static final String ARGUMENTS_BLOCK = "ark_arguments";
  /** Slack's limits: option texts 75 characters, option values 150, labels and hints 2000, text inputs 3000. */
  private static final int OPTION_TEXT = 75;
  private static final int LABEL = 2000;
  private static final int INPUT = 3000;

  private SlackForms() {
  }

  /** The blocks of a form question's modal. */
  static JsonArray formBlocks(Question question) {
    ResponseSchema schema = question.form().responseSchema();
    JsonArray blocks = new JsonArray().add(SlackBlocks.section(SlackBlocks.text(question.asked().content(), INPUT)));
    for (Field field : schema.fields().values()) {
      JsonObject input = new JsonObject()
          .put("type", "input")
          .put("block_id", FIELD_BLOCK + field.name())
          .put("label", SlackBlocks.plain(cut(field.label(), LABEL)))
          // An unticked checkbox is an answer too (false), so a boolean input is never required to be ticked.
          .put("optional", !schema.required().contains(field.name()) || "boolean".equals(field.type()))
          .put("element", element(field));
      if (field.description() != null || isNumber(field)) {
        input.put("hint", SlackBlocks.plain(cut(hint(field), LABEL)));
      }
      blocks.add(input);
    }
    return blocks;
  }

  /** The blocks of an approval's modal, for approving or rejecting as {@code action} says. */
  static JsonArray decisionBlocks(Question question, Decision.Action action) {
    JsonArray blocks = new JsonArray().add(SlackBlocks.section((action == Decision.Action.APPROVED ? "*Approve:* " : "*Reject:* ")
        + SlackBlocks.text(question.asked().content(), INPUT - 20)));
    blocks.add(new JsonObject()
        .put("type", "input")
        .put("block_id", REASON_BLOCK)
        .put("label", SlackBlocks.plain("Reason"))
        .put("optional", !question.form().reasonRequired())
        .put("element", new JsonObject().put("type", "plain_text_input").put("action_id", VALUE).put("multiline", true)
            .put("max_length", INPUT)));
    if (action == Decision.Action.APPROVED && question.form().arguments() != null) {
      blocks.add(new JsonObject()
          .put("type", "input")
          .put("block_id", ARGUMENTS_BLOCK)
          .put("label", SlackBlocks.plain("Arguments (JSON; edit them to approve other ones)"))
          .put("optional", true)
          .put("element", new JsonObject().put("type", "plain_text_input").put("action_id", VALUE).put("multiline", true)
              .put("initial_value", cut(question.form().arguments().toPrettyString(), INPUT))));
    }
    return blocks;
  }

  /** What a submitted form question's modal answers: the fields given, each as its type. */
  static Reply.Form answer(Question question, JsonObject values) {
    ObjectNode answer = QuestionJson.MAPPER.createObjectNode();
    for (Field field : question.form().responseSchema().fields().values()) {
      JsonObject state = values.getJsonObject(FIELD_BLOCK + field.name(), new JsonObject()).getJsonObject(VALUE);
      JsonNode value = state == null ? null : value(field, state);
      if (value != null) {
        answer.set(field.name(), value);
      }
    }
    return new Reply.Form(answer);
  }

  /** What a submitted approval modal decides; arguments shown and left as they were are no edit. */
  static Reply.Verdict decision(Question question, Decision.Action action, JsonObject values) {
    String reason = text(values, REASON_BLOCK);
    String arguments = text(values, ARGUMENTS_BLOCK);
    JsonNode edited = null;
    if (arguments != null && !arguments.isBlank()) {
      try {
        edited = QuestionJson.MAPPER.readTree(arguments);
      } catch (JsonProcessingException e) {
        throw new InboundProblem(400, "decision.arguments must be JSON: " + e.getOriginalMessage());
      }
      if (edited.equals(question.form().arguments())) {
        edited = null;
      }
    }
    return new Reply.Verdict(action, reason, edited);
  }

  /** The input a refusal belongs under: the field or part it names, else the modal's first input. */
  static String blockFor(String message, JsonObject values) {
    String named = null;
    if (message.startsWith("answer.")) {
      int end = message.indexOf(' ');
      named = FIELD_BLOCK + message.substring("answer.".length(), end < 0 ? message.length() : end);
    } else if (message.startsWith("decision.arguments")) {
      named = ARGUMENTS_BLOCK;
    } else if (message.startsWith("decision.")) {
      named = REASON_BLOCK;
    }
    if (named != null && values.containsKey(named)) {
      return named;
    }
    Iterator<String> first = values.fieldNames().iterator();
    return first.hasNext() ? first.next() : SlackBlocks.FORM_BLOCK;
  }

  private static JsonObject element(Field field) {
    JsonNode fallback = field.defaultValue();
    if ("boolean".equals(field.type())) {
      JsonObject checkbox = option(field.label(), "true");
      JsonObject element = new JsonObject().put("type", "checkboxes").put("action_id", VALUE)
          .put("options", new JsonArray().add(checkbox));
      return fallback != null && fallback.asBoolean() ? element.put("initial_options", new JsonArray().add(checkbox)) : element;
    }
    if (field.isChoice()) {
      JsonArray options = new JsonArray();
      field.choices().forEach((value, label) -> options.add(option(label, value)));
      JsonObject element = new JsonObject().put("action_id", VALUE).put("options", options)
          .put("placeholder", SlackBlocks.plain("Choose"));
      if (field.isMultipleChoice()) {
        element.put("type", "multi_static_select");
        if (fallback != null && fallback.isArray() && !fallback.isEmpty()) {
          JsonArray initial = new JsonArray();
          fallback.forEach(value -> initial.add(option(field.choices().get(value.asText()), value.asText())));
          element.put("initial_options", initial);
        }
      } else {
        element.put("type", "static_select");
        if (fallback != null) {
          element.put("initial_option", option(field.choices().get(fallback.asText()), fallback.asText()));
        }
      }
      return element;
    }
    JsonObject element = new JsonObject().put("type", "plain_text_input").put("action_id", VALUE);
    JsonNode definition = field.definition();
    element.put("max_length", Math.min(definition.path("maxLength").asInt(INPUT), INPUT));
    if (definition.has("minLength") && definition.get("minLength").asInt() > 0) {
      element.put("min_length", Math.min(definition.get("minLength").asInt(), INPUT));
    }
    if (fallback != null) {
      element.put("initial_value", fallback.asText());
    }
    return element;
  }

  private static JsonNode value(Field field, JsonObject state) {
    if ("boolean".equals(field.type())) {
      return QuestionJson.MAPPER.getNodeFactory().booleanNode(!state.getJsonArray("selected_options", new JsonArray()).isEmpty());
    }
    if (field.isMultipleChoice()) {
      JsonArray selected = state.getJsonArray("selected_options", new JsonArray());
      if (selected.isEmpty()) {
        return null;
      }
      ArrayNode values = QuestionJson.MAPPER.createArrayNode();
      selected.forEach(option -> values.add(((JsonObject) option).getString("value")));
      return values;
    }
    if (field.isChoice()) {
      JsonObject selected = state.getJsonObject("selected_option");
      return selected == null ? null : QuestionJson.MAPPER.getNodeFactory().textNode(selected.getString("value"));
    }
    String typed = state.getString("value");
    return typed == null || typed.isBlank() ? null : field.read(typed);
  }

  private static String text(JsonObject values, String block) {
    JsonObject state = values.getJsonObject(block, new JsonObject()).getJsonObject(VALUE);
    return state == null ? null : state.getString("value");
  }

  private static boolean isNumber(Field field) {
    return "number".equals(field.type()) || "integer".equals(field.type());
  }

  private static String hint(Field field) {
    if (!isNumber(field)) {
      return field.description();
    }
    JsonNode definition = field.definition();
    String range = ("integer".equals(field.type()) ? "A whole number" : "A number")
        + (definition.has("minimum") ? " from " + definition.get("minimum") : "")
        + (definition.has("maximum") ? " up to " + definition.get("maximum") : "");
    return field.description() == null ? range : field.description() + " (" + range + ")";
  }

  private static JsonObject option(String label, String value) {
    return new JsonObject().put("text", SlackBlocks.plain(cut(label, OPTION_TEXT))).put("value", value);
  }

  private static String cut(String text, int max) {
    return text.length() <= max ? text : text.substring(0, max - 1) + "…";
  }

  /** The answer of a form question as lines people read, each field's label and value; not yet escaped. */
  static String answerText(Question question) {
    StringBuilder text = new StringBuilder();
    Map<String, Field> fields = question.form().responseSchema().fields();
    question.outcome().answer().properties().forEach(entry -> {
      Field field = fields.get(entry.getKey());
      String label = field == null ? entry.getKey() : field.label();
      text.append("\n• *").append(label).append(":* ")
          .append(entry.getValue().isTextual() ? entry.getValue().textValue() : entry.getValue().toString());
    });
    return text.toString();
  }
}
