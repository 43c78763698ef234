package ark.broker.http;

import ark.broker.bus.TraceStore.NewSpan;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The spans of an OTLP/HTTP trace export request, rendered as upstream stores and shows them: from protobuf (what
 * Ark's controller and Python SDK send) as protobufjs's {@code toObject} with longs, enums and bytes as strings and
 * defaults filled in renders them (ids in base64, enums by name, 64-bit integers as strings); from JSON as sent. Of
 * each span upstream keeps its ids, name, kind, times, attributes, status and its resource's attributes as an
 * object; the scope, events, links and dropped counts go.
 */
final class OtlpSpans {
  /** The attribute whose string value names the span's Ark session. */
  static final String SESSION_ATTRIBUTE = "ark.session.id";
  private static final JsonFactory JSON = new JsonFactory();

  /** A request upstream refuses with 400 and its error, {@code {"error":"<message>"}}. */
  static final class Invalid extends Exception {
    Invalid(String message) {
      super(message, null, false, false);
    }
  }

  private OtlpSpans() {
  }

  /** The spans of a protobuf request; more than {@code maxSpans} is 413, known before any span is built. */
  static List<NewSpan> fromProtobuf(byte[] body, int maxSpans) throws Invalid {
    ExportTraceServiceRequest request;
    try {
      countSpans(CodedInputStream.newInstance(body), maxSpans);
      request = ExportTraceServiceRequest.parseFrom(body);
    } catch (IOException e) {
      throw new Invalid("Failed to decode protobuf data");
    }
    List<NewSpan> spans = new ArrayList<>();
    for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
      Map<String, AnyValue> resource = new LinkedHashMap<>();
      Resource ofSpans = resourceSpans.getResource();
      ofSpans.getAttributesList().forEach(attribute -> resource.put(attribute.getKey(), attribute.getValue()));
      for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
        for (Span span : scope.getSpansList()) {
          spans.add(new NewSpan(base64(span.getTraceId()), sessionOf(span.getAttributesList()), render(json -> {
            json.writeStringField("traceId", base64(span.getTraceId()));
            json.writeStringField("spanId", base64(span.getSpanId()));
            json.writeStringField("parentSpanId", base64(span.getParentSpanId()));
            json.writeStringField("name", span.getName());
            Span.SpanKind kind = span.getKind();
            if (kind == Span.SpanKind.UNRECOGNIZED) {
              json.writeNumberField("kind", span.getKindValue());
            } else {
              json.writeStringField("kind", kind.name());
            }
            json.writeStringField("startTimeUnixNano", Long.toUnsignedString(span.getStartTimeUnixNano()));
            json.writeStringField("endTimeUnixNano", Long.toUnsignedString(span.getEndTimeUnixNano()));
            json.writeArrayFieldStart("attributes");
            for (KeyValue attribute : span.getAttributesList()) {
              keyValue(json, attribute);
            }
            json.writeEndArray();
            json.writeFieldName("status");
            if (span.hasStatus()) {
              Status status = span.getStatus();
              json.writeStartObject();
              json.writeStringField("message", status.getMessage());
              if (status.getCode() == Status.StatusCode.UNRECOGNIZED) {
                json.writeNumberField("code", status.getCodeValue());
              } else {
                json.writeStringField("code", status.getCode().name());
              }
              json.writeEndObject();
            } else {
              json.writeNull();
            }
            json.writeObjectFieldStart("resource");
            for (Map.Entry<String, AnyValue> attribute : resource.entrySet()) {
              json.writeFieldName(attribute.getKey());
              resourceValue(json, attribute.getValue());
            }
            json.writeEndObject();
          })));
        }
      }
    }
    return spans;
  }

  /** The spans of a JSON request; more than {@code maxSpans} is 413, known before any span is built. */
  static List<NewSpan> fromJson(ArkJson arkJson, byte[] body, int maxSpans) throws Invalid {
    JsonNode request;
    try (JsonParser parser = arkJson.parser(body)) {
      if (parser.nextToken() == JsonToken.START_OBJECT) {
        int[] spans = {0};
        eachElement(parser, "resourceSpans", resource -> eachElement(resource, "scopeSpans",
            scope -> eachElement(scope, "spans", span -> {
              if (++spans[0] > maxSpans) {
                throw tooManySpans(maxSpans);
              }
              span.skipChildren();
            })));
      }
      request = arkJson.tree(body);
    } catch (StreamConstraintsException tooDeep) {
      throw arkJson.tooDeep();
    } catch (IOException e) {
      throw new Invalid("Invalid JSON: " + e.getMessage().lines().findFirst().orElse(""));
    }
    JsonNode resourceSpansList = request == null ? null : request.get("resourceSpans");
    if (resourceSpansList == null || resourceSpansList.isNull()) {
      throw new Invalid("Invalid OTLP request format. Expected resourceSpans array.");
    }
    List<NewSpan> spans = new ArrayList<>();
    for (JsonNode resourceSpans : array(resourceSpansList, "resourceSpans")) {
      JsonNode resource = object(resourceSpans, "resourceSpans[]").get("resource");
      List<JsonNode> resourceAttributes = resource == null || !resource.isObject() ? List.of()
          : array(resource.get("attributes"), "resource.attributes");
      for (JsonNode scope : array(resourceSpans.get("scopeSpans"), "scopeSpans")) {
        for (JsonNode span : array(object(scope, "scopeSpans[]").get("spans"), "spans")) {
          object(span, "spans[]");
          JsonNode traceId = span.get("traceId");
          if (traceId == null || !traceId.isTextual()) {
            throw new Invalid("Invalid OTLP request format. Every span needs a traceId string.");
          }
          List<JsonNode> attributes = array(span.get("attributes"), "attributes");
          for (JsonNode attribute : attributes) {
            object(attribute, "attributes[]");
          }
          spans.add(new NewSpan(traceId.textValue(), jsonSession(attributes), render(json -> {
            for (String field : new String[] {"traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano",
                "endTimeUnixNano"}) {
              copy(json, span, field);
            }
            json.writeArrayFieldStart("attributes");
            for (JsonNode attribute : attributes) {
              json.writeStartObject();
              copy(json, attribute, "key");
              copy(json, attribute, "value");
              json.writeEndObject();
            }
            json.writeEndArray();
            copy(json, span, "status");
            json.writeObjectFieldStart("resource");
            Map<String, JsonNode> values = new LinkedHashMap<>();
            for (JsonNode attribute : resourceAttributes) {
              JsonNode key = attribute.get("key");
              if (key != null && key.isTextual()) {
                values.put(key.textValue(), extracted(attribute.get("value")));
              }
            }
            for (Map.Entry<String, JsonNode> value : values.entrySet()) {
              json.writeFieldName(value.getKey());
              json.writeTree(value.getValue());
            }
            json.writeEndObject();
          })));
        }
      }
    }
    return spans;
  }

  /**
   * Walks the protobuf request's resource spans, their scope spans and their spans without building any: each is
   * skipped by its length. Fields arrive in any order and may repeat, as protobuf allows; a tag of another wire type
   * is an unknown field, skipped as the parser skips it.
   */
  private static void countSpans(CodedInputStream request, int maxSpans) throws IOException {
    int spans = 0;
    for (int tag = request.readTag(); tag != 0; tag = request.readTag()) {
      if (tag != nested(ExportTraceServiceRequest.RESOURCE_SPANS_FIELD_NUMBER)) {
        request.skipField(tag);
        continue;
      }
      int resourceEnd = request.pushLimit(request.readRawVarint32());
      for (int inResource = request.readTag(); inResource != 0; inResource = request.readTag()) {
        if (inResource != nested(ResourceSpans.SCOPE_SPANS_FIELD_NUMBER)) {
          request.skipField(inResource);
          continue;
        }
        int scopeEnd = request.pushLimit(request.readRawVarint32());
        for (int inScope = request.readTag(); inScope != 0; inScope = request.readTag()) {
          if (inScope == nested(ScopeSpans.SPANS_FIELD_NUMBER) && ++spans > maxSpans) {
            throw tooManySpans(maxSpans);
          }
          request.skipField(inScope);
        }
        request.popLimit(scopeEnd);
      }
      request.popLimit(resourceEnd);
    }
  }

  private static int nested(int field) {
    return field << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED;
  }

  private interface JsonStep {
    void at(JsonParser parser) throws IOException;
  }

  /**
   * At the start of a value: when it is an object, {@code step} at each element of its field {@code name} when that
   * is an array; everything else is skipped, token by token, and the parser is left at the value's end.
   */
  private static void eachElement(JsonParser parser, String name, JsonStep step) throws IOException {
    if (parser.currentToken() != JsonToken.START_OBJECT) {
      parser.skipChildren();
      return;
    }
    while (parser.nextToken() == JsonToken.FIELD_NAME) {
      boolean wanted = name.equals(parser.currentName());
      if (parser.nextToken() == JsonToken.START_ARRAY && wanted) {
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          step.at(parser);
        }
      } else {
        parser.skipChildren();
      }
    }
  }

  private static ArkProblem tooManySpans(int maxSpans) {
    return new ArkProblem(413, "PAYLOAD_TOO_LARGE", "the request holds more than " + maxSpans
        + " spans; one request may carry at most " + maxSpans);
  }

  /** A resource attribute's value as upstream flattens it: the one value it holds, else the value object itself. */
  private static JsonNode extracted(JsonNode value) {
    if (value == null || !value.isObject()) {
      return value == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : value;
    }
    for (String held : new String[] {"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue"}) {
      if (value.has(held)) {
        return value.get(held);
      }
    }
    return value;
  }

  private static String jsonSession(List<JsonNode> attributes) {
    for (JsonNode attribute : attributes) {
      JsonNode key = attribute.get("key");
      if (key != null && key.isTextual() && key.textValue().equals(SESSION_ATTRIBUTE)) {
        JsonNode value = attribute.get("value");
        if (value != null && value.isTextual()) {
          return value.textValue();
        }
        JsonNode text = value == null ? null : value.get("stringValue");
        return text != null && text.isTextual() ? text.textValue() : null;
      }
    }
    return null;
  }

  private static String sessionOf(List<KeyValue> attributes) {
    for (KeyValue attribute : attributes) {
      if (attribute.getKey().equals(SESSION_ATTRIBUTE)) {
        return attribute.getValue().hasStringValue() ? attribute.getValue().getStringValue() : null;
      }
    }
    return null;
  }

  private static List<JsonNode> array(JsonNode value, String name) throws Invalid {
    if (value == null || value.isNull()) {
      return List.of();
    }
    if (!value.isArray()) {
      throw new Invalid("Invalid OTLP request format. Expected " + name + " to be an array.");
    }
    List<JsonNode> elements = new ArrayList<>(value.size());
    value.forEach(elements::add);
    return elements;
  }

  private static JsonNode object(JsonNode value, String name) throws Invalid {
    if (value == null || !value.isObject()) {
      throw new Invalid("Invalid OTLP request format. Expected every element of " + name.replace("[]", "")
          + " to be an object.");
    }
    return value;
  }

  private static void copy(JsonGenerator json, JsonNode from, String field) throws IOException {
    JsonNode value = from.get(field);
    if (value != null) {
      json.writeFieldName(field);
      json.writeTree(value);
    }
  }

  /** {@code {"key","value"}}; a pair without a value has a null one. */
  private static void keyValue(JsonGenerator json, KeyValue attribute) throws IOException {
    json.writeStartObject();
    json.writeStringField("key", attribute.getKey());
    json.writeFieldName("value");
    if (attribute.hasValue()) {
      anyValue(json, attribute.getValue());
    } else {
      json.writeNull();
    }
    json.writeEndObject();
  }

  /** An {@code AnyValue} as an object holding the one value it has, or empty. */
  private static void anyValue(JsonGenerator json, AnyValue value) throws IOException {
    json.writeStartObject();
    switch (value.getValueCase()) {
      case STRING_VALUE -> json.writeStringField("stringValue", value.getStringValue());
      case BOOL_VALUE -> json.writeBooleanField("boolValue", value.getBoolValue());
      case INT_VALUE -> json.writeStringField("intValue", Long.toString(value.getIntValue()));
      case DOUBLE_VALUE -> {
        json.writeFieldName("doubleValue");
        number(json, value.getDoubleValue());
      }
      case BYTES_VALUE -> json.writeStringField("bytesValue", base64(value.getBytesValue()));
      case ARRAY_VALUE -> {
        json.writeFieldName("arrayValue");
        values(json, value);
      }
      case KVLIST_VALUE -> {
        json.writeFieldName("kvlistValue");
        values(json, value);
      }
      default -> {
        // No value: an empty object.
      }
    }
    json.writeEndObject();
  }

  /** An array's or a key-value list's {@code {"values":[...]}}. */
  private static void values(JsonGenerator json, AnyValue value) throws IOException {
    json.writeStartObject();
    json.writeArrayFieldStart("values");
    if (value.hasArrayValue()) {
      for (AnyValue element : value.getArrayValue().getValuesList()) {
        anyValue(json, element);
      }
    } else {
      for (KeyValue pair : value.getKvlistValue().getValuesList()) {
        keyValue(json, pair);
      }
    }
    json.writeEndArray();
    json.writeEndObject();
  }

  /** A resource attribute from protobuf as upstream flattens it. */
  private static void resourceValue(JsonGenerator json, AnyValue value) throws IOException {
    switch (value.getValueCase()) {
      case STRING_VALUE -> json.writeString(value.getStringValue());
      case INT_VALUE -> json.writeString(Long.toString(value.getIntValue()));
      case DOUBLE_VALUE -> number(json, value.getDoubleValue());
      case BOOL_VALUE -> json.writeBoolean(value.getBoolValue());
      case ARRAY_VALUE, KVLIST_VALUE -> values(json, value);
      default -> anyValue(json, value);
    }
  }

  /** A double as JavaScript's JSON.stringify writes it: shortest digits, no ".0", exponents from 1e21; NaN as null. */
  static void number(JsonGenerator json, double value) throws IOException {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      json.writeNull();
      return;
    }
    if (value == 0) {
      json.writeNumber(0);
      return;
    }
    BigDecimal decimal = new BigDecimal(Double.toString(value)).stripTrailingZeros();
    int exponent = decimal.precision() - decimal.scale() - 1;
    if (exponent >= 21 || exponent <= -7) {
      String digits = decimal.unscaledValue().abs().toString();
      String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
      json.writeNumber((value < 0 ? "-" : "") + mantissa + "e" + (exponent > 0 ? "+" : "-") + Math.abs(exponent));
    } else {
      json.writeNumber(decimal.toPlainString());
    }
  }

  private static String base64(ByteString bytes) {
    return Base64.getEncoder().encodeToString(bytes.toByteArray());
  }

  private interface Rendering {
    void fields(JsonGenerator json) throws IOException;
  }

  private static byte[] render(Rendering rendering) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    try (JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      json.setCodec(QuestionJson.MAPPER);
      json.writeStartObject();
      rendering.fields(json);
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
