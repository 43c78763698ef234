package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The form a question's answer fills in: the flat JSON Schema subset of MCP elicitation's {@code requestedSchema}
 * (MCP 2025-11-25), so one schema serves the API, the dashboard, Slack and GitHub. An object of top-level fields,
 * each a string (lengths, a format, or a single choice from {@code enum}, {@code enum} + {@code enumNames} or
 * {@code oneOf} const/title), a number or integer (bounds), a boolean, or a multiple choice ({@code array} of
 * an {@code enum} or {@code anyOf} const/title); {@code required} names the fields that must be given. Anything
 * else in the schema is refused, naming where it is, because a form no surface can render is a question no one
 * can answer.
 *
 * <p>Immutable by convention: the node is a private copy that nothing changes after {@link #parse}.
 */
public final class ResponseSchema {
  static final int MAX_FIELDS = 32;
  private static final int MAX_NAME = 64;
  private static final Set<String> TOP = Set.of("$schema", "type", "properties", "required");
  private static final Set<String> COMMON = Set.of("type", "title", "description", "default");
  private static final Set<String> STRING = union(COMMON, "minLength", "maxLength", "format", "enum", "enumNames", "oneOf");
  private static final Set<String> NUMBER = union(COMMON, "minimum", "maximum");
  private static final Set<String> ARRAY = union(COMMON, "minItems", "maxItems", "items");
  private static final Set<String> FORMATS = Set.of("email", "uri", "date", "date-time");
  private static final Set<String> CHOICE = Set.of("const", "title");

  private final ObjectNode schema;
  private final Map<String, Field> fields;
  private final List<String> required;

  private ResponseSchema(ObjectNode schema) {
    this.schema = schema;
    Map<String, Field> parsed = new LinkedHashMap<>();
    schema.get("properties").properties().forEach(entry -> parsed.put(entry.getKey(), Field.of(entry.getKey(), entry.getValue())));
    this.fields = parsed;
    List<String> names = new ArrayList<>();
    JsonNode requiredNode = schema.get("required");
    if (requiredNode != null) {
      requiredNode.forEach(name -> names.add(name.textValue()));
    }
    this.required = List.copyOf(names);
  }

  /** A schema an asker sent, checked: exactly the elicitation subset, or a 400 naming the offending part. */
  public static ResponseSchema parse(JsonNode node) {
    check(node);
    return new ResponseSchema(node.deepCopy());
  }

  /** A schema as the log kept it: it was checked when the question was asked. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  static ResponseSchema kept(ObjectNode node) {
    return new ResponseSchema(node);
  }

  @JsonValue
  public ObjectNode json() {
    return schema;
  }

  /** The fields in the order the schema lists them. */
  public Map<String, Field> fields() {
    return fields;
  }

  public List<String> required() {
    return required;
  }

  /**
   * Checks an answer against the form: an object with no field the form lacks, every required field, and each
   * value of its field's type and within its bounds. Fields given as null count as not given and are left out.
   *
   * @return the answer as it is kept
   * @throws InvalidQuestionException naming the first field that fails, as {@code answer.<field>}
   */
  public ObjectNode validate(JsonNode answer) {
    if (answer == null || !answer.isObject()) {
      throw new InvalidQuestionException("answer must be a JSON object with the fields of the question's responseSchema "
          + fields.keySet());
    }
    ObjectNode kept = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> entry : answer.properties()) {
      Field field = fields.get(entry.getKey());
      if (field == null) {
        throw new InvalidQuestionException("answer." + entry.getKey() + " is not a field of this question's form; fields: "
            + fields.keySet());
      }
      if (!entry.getValue().isNull()) {
        field.check("answer." + entry.getKey(), entry.getValue());
        kept.set(entry.getKey(), entry.getValue().deepCopy());
      }
    }
    for (String name : required) {
      if (!kept.has(name)) {
        throw new InvalidQuestionException("answer." + name + " is required");
      }
    }
    if (kept.toString().length() > Limits.TEXT) {
      throw new InvalidQuestionException("answer is longer than " + Limits.TEXT + " characters as JSON");
    }
    return kept;
  }

  /**
   * An answer people typed as text, one value a field ({@code key=value} lines in a comment, a form's text inputs):
   * keys are a field's name or its title in any letter case, values are read as their field's type
   * ({@link Field#read}). A key that names no field is kept as typed, for {@link #validate} to name; blank values
   * are left out, as fields not given.
   */
  public ObjectNode fromText(Map<String, String> values) {
    ObjectNode answer = JsonNodeFactory.instance.objectNode();
    values.forEach((key, value) -> {
      Field field = fieldNamed(key.strip());
      if (!value.isBlank()) {
        answer.set(field == null ? key.strip() : field.name(), field == null ? answer.textNode(value.strip()) : field.read(value));
      }
    });
    return answer;
  }

  private Field fieldNamed(String key) {
    Field field = fields.get(key);
    if (field != null) {
      return field;
    }
    return fields.values().stream().filter(candidate -> candidate.name().equalsIgnoreCase(key)
        || candidate.title() != null && candidate.title().equalsIgnoreCase(key)).findFirst().orElse(null);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ResponseSchema that && schema.equals(that.schema);
  }

  @Override
  public int hashCode() {
    return schema.hashCode();
  }

  @Override
  public String toString() {
    return schema.toString();
  }

  private static void check(JsonNode node) {
    if (node == null || !node.isObject()) {
      throw new InvalidQuestionException("responseSchema must be a JSON object such as "
          + "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}");
    }
    allowOnly("responseSchema", node, TOP);
    if (!"object".equals(text(node, "type"))) {
      throw new InvalidQuestionException("responseSchema.type must be \"object\"");
    }
    JsonNode schemaUri = node.get("$schema");
    if (schemaUri != null && !schemaUri.isTextual()) {
      throw new InvalidQuestionException("responseSchema.$schema must be a string");
    }
    JsonNode properties = node.get("properties");
    if (properties == null || !properties.isObject() || properties.isEmpty() || properties.size() > MAX_FIELDS) {
      throw new InvalidQuestionException("responseSchema.properties must be an object of 1 to " + MAX_FIELDS + " fields");
    }
    properties.properties().forEach(entry -> {
      String name = entry.getKey();
      if (name.isEmpty() || name.length() > MAX_NAME) {
        throw new InvalidQuestionException("responseSchema.properties names must be 1 to " + MAX_NAME + " characters");
      }
      Field.of(name, entry.getValue()).checkDefinition("responseSchema.properties." + name, entry.getValue());
    });
    JsonNode required = node.get("required");
    if (required != null) {
      if (!required.isArray()) {
        throw new InvalidQuestionException("responseSchema.required must be an array of field names");
      }
      Set<String> seen = new HashSet<>();
      for (JsonNode name : required) {
        if (!name.isTextual() || !properties.has(name.textValue()) || !seen.add(name.textValue())) {
          throw new InvalidQuestionException("responseSchema.required must name each field of properties at most once, not "
              + name);
        }
      }
    }
    if (node.toString().length() > Limits.TEXT) {
      throw new InvalidQuestionException("responseSchema is longer than " + Limits.TEXT + " characters as JSON");
    }
  }

  /**
   * One field of the form, as surfaces render it.
   *
   * @param type    string, number, integer, boolean or array (a multiple choice)
   * @param choices the values a choice may take with their labels, in order; empty for a field that is no choice
   */
  public record Field(String name, String type, String title, String description, JsonNode defaultValue,
                      Map<String, String> choices, JsonNode definition) {

    static Field of(String name, JsonNode definition) {
      if (definition == null || !definition.isObject()) {
        throw new InvalidQuestionException("responseSchema.properties." + name + " must be an object with a type");
      }
      String type = text(definition, "type");
      Map<String, String> choices = new LinkedHashMap<>();
      JsonNode options = "array".equals(type) && definition.get("items") != null ? definition.get("items") : definition;
      JsonNode values = options.get("enum");
      JsonNode names = definition.get("enumNames");
      JsonNode titled = options.has("oneOf") ? options.get("oneOf") : options.get("anyOf");
      if (values != null && values.isArray()) {
        for (int i = 0; i < values.size(); i++) {
          String value = values.get(i).asText();
          choices.put(value, names != null && names.isArray() && i < names.size() ? names.get(i).asText() : value);
        }
      } else if (titled != null && titled.isArray()) {
        titled.forEach(choice -> choices.put(choice.path("const").asText(), choice.path("title").asText()));
      }
      return new Field(name, type, text(definition, "title"), text(definition, "description"), definition.get("default"),
          choices, definition);
    }

    /** The label people see: the title, else the name. */
    public String label() {
      return title != null ? title : name;
    }

    public boolean isChoice() {
      return !choices.isEmpty();
    }

    public boolean isMultipleChoice() {
      return "array".equals(type);
    }

    void checkDefinition(String where, JsonNode definition) {
      for (String text : List.of("title", "description")) {
        JsonNode node = definition.get(text);
        if (node != null && (!node.isTextual() || node.textValue().length() > Limits.TEXT)) {
          throw new InvalidQuestionException(where + "." + text + " must be a string");
        }
      }
      switch (type == null ? "" : type) {
        case "string" -> checkString(where, definition);
        case "number", "integer" -> {
          allowOnly(where, definition, NUMBER);
          JsonNode min = number(where, definition, "minimum");
          JsonNode max = number(where, definition, "maximum");
          if (min != null && max != null && min.decimalValue().compareTo(max.decimalValue()) > 0) {
            throw new InvalidQuestionException(where + ".minimum must not be above its maximum");
          }
        }
        case "boolean" -> allowOnly(where, definition, COMMON);
        case "array" -> checkMultipleChoice(where, definition);
        default -> throw new InvalidQuestionException(where + ".type must be string, number, integer, boolean or array "
            + "(MCP elicitation's flat schema: no nested objects), not " + definition.get("type"));
      }
      JsonNode fallback = definition.get("default");
      if (fallback != null) {
        check(where + ".default", fallback);
      }
    }

    private void checkString(String where, JsonNode definition) {
      allowOnly(where, definition, STRING);
      boolean hasEnum = definition.has("enum");
      boolean hasOneOf = definition.has("oneOf");
      if (hasEnum && hasOneOf) {
        throw new InvalidQuestionException(where + " must give its choices as enum or as oneOf, not both");
      }
      if ((hasEnum || hasOneOf) && (definition.has("minLength") || definition.has("maxLength") || definition.has("format"))) {
        throw new InvalidQuestionException(where + " is a choice: minLength, maxLength and format do not apply");
      }
      if (definition.has("enumNames") && !hasEnum) {
        throw new InvalidQuestionException(where + ".enumNames needs an enum beside it");
      }
      if (hasEnum) {
        List<String> values = distinctTexts(where + ".enum", definition.get("enum"));
        if (definition.has("enumNames") && distinctTexts(where + ".enumNames", definition.get("enumNames")).size() != values.size()) {
          throw new InvalidQuestionException(where + ".enumNames must name each value of enum, in order");
        }
      }
      if (hasOneOf) {
        checkTitledChoices(where + ".oneOf", definition.get("oneOf"));
      }
      JsonNode min = count(where, definition, "minLength");
      JsonNode max = count(where, definition, "maxLength");
      if (min != null && max != null && min.intValue() > max.intValue()) {
        throw new InvalidQuestionException(where + ".minLength must not be above its maxLength");
      }
      JsonNode format = definition.get("format");
      if (format != null && !(format.isTextual() && FORMATS.contains(format.textValue()))) {
        throw new InvalidQuestionException(where + ".format must be one of " + FORMATS.stream().sorted().toList() + ", not " + format);
      }
    }

    private void checkMultipleChoice(String where, JsonNode definition) {
      allowOnly(where, definition, ARRAY);
      JsonNode items = definition.get("items");
      if (items == null || !items.isObject()) {
        throw new InvalidQuestionException(where + ".items must be {\"type\":\"string\",\"enum\":[...]} or {\"anyOf\":[{\"const\":...,\"title\":...}]}");
      }
      if (items.has("anyOf")) {
        allowOnly(where + ".items", items, Set.of("anyOf"));
        checkTitledChoices(where + ".items.anyOf", items.get("anyOf"));
      } else {
        allowOnly(where + ".items", items, Set.of("type", "enum"));
        if (!"string".equals(text(items, "type"))) {
          throw new InvalidQuestionException(where + ".items.type must be \"string\"");
        }
        distinctTexts(where + ".items.enum", items.get("enum"));
      }
      JsonNode min = count(where, definition, "minItems");
      JsonNode max = count(where, definition, "maxItems");
      if (min != null && max != null && min.intValue() > max.intValue()) {
        throw new InvalidQuestionException(where + ".minItems must not be above its maxItems");
      }
    }

    /**
     * A value typed as text, read as this field's type: a number for number and integer fields, true or false
     * (also yes/no) for booleans, comma-separated choices for a multiple choice; a choice may be given by its
     * label too. Text that does not read as the type stays text, so that {@link #check} says what is wrong.
     */
    public JsonNode read(String text) {
      String value = text.strip();
      return switch (type) {
        case "number", "integer" -> {
          try {
            yield JsonNodeFactory.instance.numberNode(new java.math.BigDecimal(value));
          } catch (NumberFormatException e) {
            yield JsonNodeFactory.instance.textNode(value);
          }
        }
        case "boolean" -> switch (value.toLowerCase(Locale.ROOT)) {
          case "true", "yes" -> JsonNodeFactory.instance.booleanNode(true);
          case "false", "no" -> JsonNodeFactory.instance.booleanNode(false);
          default -> JsonNodeFactory.instance.textNode(value);
        };
        case "array" -> {
          var array = JsonNodeFactory.instance.arrayNode();
          for (String choice : value.split(",")) {
            if (!choice.isBlank()) {
              array.add(choiceNamed(choice.strip()));
            }
          }
          yield array;
        }
        default -> JsonNodeFactory.instance.textNode(isChoice() ? choiceNamed(value) : value);
      };
    }

    private String choiceNamed(String given) {
      if (choices.containsKey(given)) {
        return given;
      }
      return choices.entrySet().stream().filter(choice -> choice.getKey().equalsIgnoreCase(given)
          || choice.getValue().equalsIgnoreCase(given)).map(Map.Entry::getKey).findFirst().orElse(given);
    }

    /** Checks one value of this field; {@code where} names it in the message. */
    public void check(String where, JsonNode value) {
      switch (type) {
        case "string" -> checkStringValue(where, value);
        case "number", "integer" -> checkNumberValue(where, value);
        case "boolean" -> {
          if (!value.isBoolean()) {
            throw new InvalidQuestionException(where + " must be true or false");
          }
        }
        default -> checkChoicesValue(where, value);
      }
    }

    private void checkStringValue(String where, JsonNode value) {
      if (!value.isTextual()) {
        throw new InvalidQuestionException(where + " must be a string");
      }
      String text = value.textValue();
      if (isChoice()) {
        if (!choices.containsKey(text)) {
          throw new InvalidQuestionException(where + " must be one of " + choices.keySet() + ", not '" + text + "'");
        }
        return;
      }
      int length = text.codePointCount(0, text.length());
      int min = definition.path("minLength").asInt(0);
      int max = definition.path("maxLength").asInt(Limits.TEXT);
      if (length < min) {
        throw new InvalidQuestionException(where + " must be at least " + min + " characters long");
      }
      if (length > Math.min(max, Limits.TEXT)) {
        throw new InvalidQuestionException(where + " must be at most " + Math.min(max, Limits.TEXT) + " characters long");
      }
      JsonNode format = definition.get("format");
      if (format != null && !TextFormats.matches(format.textValue(), text)) {
        throw new InvalidQuestionException(where + " must be " + TextFormats.describe(format.textValue()) + ", not '" + text + "'");
      }
    }

    private void checkNumberValue(String where, JsonNode value) {
      if (!value.isNumber()) {
        throw new InvalidQuestionException(where + " must be a number");
      }
      java.math.BigDecimal number = value.decimalValue();
      if ("integer".equals(type) && number.stripTrailingZeros().scale() > 0) {
        throw new InvalidQuestionException(where + " must be a whole number");
      }
      JsonNode min = definition.get("minimum");
      JsonNode max = definition.get("maximum");
      if (min != null && number.compareTo(min.decimalValue()) < 0) {
        throw new InvalidQuestionException(where + " must be at least " + min);
      }
      if (max != null && number.compareTo(max.decimalValue()) > 0) {
        throw new InvalidQuestionException(where + " must be at most " + max);
      }
    }

    private void checkChoicesValue(String where, JsonNode value) {
      if (!value.isArray()) {
        throw new InvalidQuestionException(where + " must be an array of choices from " + choices.keySet());
      }
      Set<String> seen = new HashSet<>();
      for (JsonNode element : value) {
        if (!element.isTextual() || !choices.containsKey(element.textValue()) || !seen.add(element.textValue())) {
          throw new InvalidQuestionException(where + " must list distinct choices from " + choices.keySet() + ", not " + element);
        }
      }
      int min = definition.path("minItems").asInt(0);
      int max = definition.path("maxItems").asInt(choices.size());
      if (seen.size() < min || seen.size() > max) {
        throw new InvalidQuestionException(where + " must list between " + min + " and " + max + " choices");
      }
    }
  }

  private static void checkTitledChoices(String where, JsonNode choices) {
    if (choices == null || !choices.isArray() || choices.isEmpty() || choices.size() > Limits.OPTIONS) {
      throw new InvalidQuestionException(where + " must list 1 to " + Limits.OPTIONS + " {\"const\":...,\"title\":...} choices");
    }
    Set<String> seen = new HashSet<>();
    for (JsonNode choice : choices) {
      if (!choice.isObject() || !(choice.path("const").isTextual() && choice.path("title").isTextual())) {
        throw new InvalidQuestionException(where + " must list {\"const\": string, \"title\": string} choices, not " + choice);
      }
      allowOnly(where + "[]", choice, CHOICE);
      if (!seen.add(choice.get("const").textValue())) {
        throw new InvalidQuestionException(where + " must not repeat a const");
      }
    }
  }

  private static List<String> distinctTexts(String where, JsonNode array) {
    if (array == null || !array.isArray() || array.isEmpty() || array.size() > Limits.OPTIONS) {
      throw new InvalidQuestionException(where + " must list 1 to " + Limits.OPTIONS + " strings");
    }
    List<String> values = new ArrayList<>();
    for (JsonNode element : array) {
      if (!element.isTextual() || element.textValue().length() > Limits.SHORT_TEXT || values.contains(element.textValue())) {
        throw new InvalidQuestionException(where + " must list distinct strings of at most " + Limits.SHORT_TEXT
            + " characters, not " + element);
      }
      values.add(element.textValue());
    }
    return values;
  }

  private static JsonNode number(String where, JsonNode definition, String key) {
    JsonNode node = definition.get(key);
    if (node != null && !node.isNumber()) {
      throw new InvalidQuestionException(where + "." + key + " must be a number");
    }
    return node;
  }

  private static JsonNode count(String where, JsonNode definition, String key) {
    JsonNode node = definition.get(key);
    if (node != null && !(node.isIntegralNumber() && node.canConvertToInt() && node.intValue() >= 0)) {
      throw new InvalidQuestionException(where + "." + key + " must be a whole number, 0 or more");
    }
    return node;
  }

  private static void allowOnly(String where, JsonNode node, Set<String> allowed) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw new InvalidQuestionException(where + "." + name + " is not part of MCP elicitation's schema subset; allowed here: "
            + allowed.stream().sorted().toList());
      }
    }
  }

  private static String text(JsonNode node, String key) {
    JsonNode value = node.get(key);
    return value != null && value.isTextual() ? value.textValue() : null;
  }

  private static Set<String> union(Set<String> base, String... more) {
    Set<String> all = new HashSet<>(base);
    all.addAll(List.of(more));
    return Set.copyOf(all);
  }
}
