package ark.broker.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.fabric8.zjsonpatch.JsonPatch;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * A CRD as the API server checks objects against it: its {@code openAPIV3Schema} turned into a JSON Schema
 * (draft 7) for networknt's validator, because fabric8's mock API server checks nothing. The subset of OpenAPI v3
 * a CRD may use maps almost one to one; {@code nullable} adds {@code null} to the type,
 * {@code x-kubernetes-int-or-string} lifts the type, the other {@code x-kubernetes-*} markers and descriptions are
 * ignored. An object that declares its properties without {@code x-kubernetes-preserve-unknown-fields} is closed:
 * the API server would silently prune an unknown field, which for a test is a write that did not happen.
 */
public final class CrdSchema {
  private static final ObjectMapper YAML = new YAMLMapper();
  private static final ObjectMapper JSON = new ObjectMapper();
  /** OpenAPI keywords that mean the same in JSON Schema draft 7. */
  private static final Set<String> SAME = Set.of("type", "enum", "required", "pattern", "minimum", "maximum",
      "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "multipleOf", "minProperties", "maxProperties");
  /** Formats the validator knows as Kubernetes means them; others (int64, byte, duration) only describe. */
  private static final Set<String> CHECKED_FORMATS = Set.of("date-time");

  final JsonNode crd;
  final String plural;
  private final JsonSchema schema;

  private CrdSchema(JsonNode crd) {
    this.crd = crd;
    this.plural = crd.path("spec").path("names").path("plural").asText();
    JsonNode openApi = crd.path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema");
    this.schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7)
        .getSchema(jsonSchema(openApi), SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build());
  }

  /**
   * Reads a CRD from the test resources, with the JSON patches ({@code - op: ...} YAML files, such as the one
   * k8s/overlays/waiting-phase/ ships) applied in order.
   */
  public static CrdSchema load(String resource, Path... patches) {
    JsonNode crd = yaml(resource);
    for (Path patch : patches) {
      try {
        crd = JsonPatch.apply(YAML.readTree(patch.toFile()), crd);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return new CrdSchema(crd);
  }

  /** What the API server would refuse in {@code object}, one line each; empty when it is valid. */
  public List<String> violations(JsonNode object) {
    return schema.validate(object).stream().map(ValidationMessage::getMessage).sorted().toList();
  }

  private static JsonNode yaml(String resource) {
    try (InputStream in = CrdSchema.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + resource);
      }
      return YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ObjectNode jsonSchema(JsonNode openApi) {
    ObjectNode out = JSON.createObjectNode();
    openApi.properties().forEach(field -> {
      String key = field.getKey();
      JsonNode value = field.getValue();
      switch (key) {
        case "properties" -> {
          ObjectNode properties = out.putObject("properties");
          value.properties().forEach(p -> properties.set(p.getKey(), jsonSchema(p.getValue())));
        }
        case "items", "not" -> out.set(key, jsonSchema(value));
        case "additionalProperties" -> out.set(key, value.isBoolean() ? value : jsonSchema(value));
        case "allOf", "anyOf", "oneOf" -> {
          ArrayNode each = out.putArray(key);
          value.forEach(schema -> each.add(jsonSchema(schema)));
        }
        case "format" -> {
          if (CHECKED_FORMATS.contains(value.asText())) {
            out.set(key, value);
          }
        }
        default -> {
          if (SAME.contains(key)) {
            out.set(key, value);
          }
        }
      }
    });
    if (openApi.path("x-kubernetes-int-or-string").asBoolean(false)) {
      out.remove("type");
    }
    if (openApi.path("nullable").asBoolean(false) && out.has("type")) {
      out.putArray("type").add(openApi.get("type").asText()).add("null");
      if (out.has("enum")) {
        ((ArrayNode) out.get("enum")).addNull();
      }
    }
    if (out.has("properties") && !out.has("additionalProperties")
        && !openApi.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)) {
      out.put("additionalProperties", false);
    }
    return out;
  }
}
