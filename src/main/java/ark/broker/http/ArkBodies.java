package ark.broker.http;

import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.ext.web.RoutingContext;

import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The JSON bodies of Ark's broker routes, checked as upstream's schemas check them: every field's problem named as
 * {@code "<field>: <what is wrong>"}, all of them in one message, nothing written unless all is well.
 */
final class ArkBodies {
  /** {@code Number.MAX_SAFE_INTEGER}: beyond it upstream's schema refuses a whole number. */
  static final long MAX_WHOLE = 9_007_199_254_740_991L;
  private final ObjectNode body;
  /** What names a field of this body in a problem: empty for the request's body, {@code "data."} for a nested one. */
  private final String path;
  private final List<String> problems;

  private ArkBodies(ObjectNode body) {
    this(body, "", new ArrayList<>());
  }

  private ArkBodies(ObjectNode body, String path, List<String> problems) {
    this.body = body;
    this.path = path;
    this.problems = problems;
  }

  /**
   * The request's JSON object, from its decoded body; a body of another type, not JSON or not an object is a validation
   * error. Parses only, so it runs wherever the body is decoded.
   */
  static ArkBodies parse(ArkJson json, String type, byte[] raw) {
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      throw ArkProblem.invalid("body: expected application/json, received " + (type == null ? "no content type" : type));
    }
    JsonNode parsed;
    try {
      parsed = json.tree(raw);
    } catch (JsonProcessingException e) {
      throw ArkProblem.invalid("body: not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw ArkProblem.invalid("body: cannot be read");
    }
    if (parsed == null || !parsed.isObject()) {
      throw ArkProblem.invalid("body: Invalid input: expected object, received "
          + (parsed == null ? "undefined" : parsed.getNodeType().name().toLowerCase(Locale.ROOT)));
    }
    return new ArkBodies((ObjectNode) parsed);
  }

  /** The body {@link ArkRoutes#postJson} parsed. */
  static ArkBodies decoded(RoutingContext ctx) {
    return ArkBodyReader.decoded(ctx, ArkBodies.class);
  }

  ObjectNode body() {
    return body;
  }

  /** A string field, at least one character when required. */
  String text(String field, boolean required) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      if (required) {
        problems.add(path + field + ": Invalid input: expected string, received undefined");
      }
      return null;
    }
    if (!value.isTextual()) {
      problems.add(path + field + ": Invalid input: expected string, received " + kind(value));
      return null;
    }
    if (required && value.textValue().isEmpty()) {
      problems.add(path + field + ": Too small: expected string to have >=1 characters");
    }
    return value.textValue();
  }

  /** An array field, required. */
  List<JsonNode> array(String field) {
    JsonNode value = body.get(field);
    if (value == null || !value.isArray()) {
      problems.add(path + field + ": Invalid input: expected array, received " + (value == null ? "undefined" : kind(value)));
      return List.of();
    }
    List<JsonNode> elements = new ArrayList<>(value.size());
    value.forEach(elements::add);
    return elements;
  }

  /**
   * A positive whole number up to {@value #MAX_WHOLE} (the largest upstream's schema takes, JavaScript's largest exact
   * one), or a string of one (coerced, as upstream's schema does), or null when absent.
   */
  Long positive(String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    BigInteger number;
    if (value.canConvertToExactIntegral() && value.isNumber()) {
      number = value.bigIntegerValue();
    } else if (value.isTextual() && value.textValue().trim().matches("\\d{1,400}")) {
      number = new BigInteger(value.textValue().trim());
    } else {
      problems.add(path + field + ": Invalid input: expected int, received " + kind(value));
      return null;
    }
    if (number.signum() < 1) {
      problems.add(path + field + ": Too small: expected number to be >0");
      return null;
    }
    if (number.compareTo(BigInteger.valueOf(MAX_WHOLE)) > 0) {
      problems.add(path + field + ": Too big: expected number to be <=" + MAX_WHOLE);
      return null;
    }
    return number.longValueExact();
  }

  /**
   * A required object field, checked like the body (its problems named {@code "<field>.<its field>: ..."} among the
   * body's); null, with its problem noted, when it is no object.
   */
  ArkBodies object(String field) {
    JsonNode value = body.get(field);
    if (value == null || !value.isObject()) {
      problems.add(path + field + ": Invalid input: expected object, received "
          + (value == null ? "undefined" : kind(value)));
      return null;
    }
    return new ArkBodies((ObjectNode) value, path + field + ".", problems);
  }

  /** Refuses the body with every problem found, if any. */
  void check() {
    if (!problems.isEmpty()) {
      throw ArkProblem.invalid(String.join("; ", problems));
    }
  }

  /** A JSON value as compact bytes, as it is kept and read back. */
  static byte[] compact(JsonNode value) {
    try {
      return QuestionJson.MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String kind(JsonNode value) {
    return value.isNumber() ? "number" : value.getNodeType().name().toLowerCase(Locale.ROOT);
  }
}
