package ark.broker.mcp.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.module.blackbird.BlackbirdModule;

import java.io.UncheckedIOException;

/** JSON for the MCP layer: strict parsing of what clients send, compact writing of what goes out. */
public final class McpJson {
  public static final ObjectMapper MAPPER = JsonMapper.builder()
      .addModule(new BlackbirdModule())
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      // A message is one JSON value: anything after it makes the body unparsable (-32700), as in JSON-RPC.
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private McpJson() {
  }

  public static ObjectNode object() {
    return NODES.objectNode();
  }

  public static ArrayNode array() {
    return NODES.arrayNode();
  }

  public static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A text field, or null when absent; anything else is the caller's mistake. */
  public static String text(JsonNode parent, String field) {
    JsonNode node = parent == null ? null : parent.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      throw JsonRpcError.invalidParams(field + " must be a string");
    }
    return node.textValue();
  }

  public static String requireText(JsonNode parent, String field) {
    String value = text(parent, field);
    if (value == null) {
      throw JsonRpcError.invalidParams(field + " is required");
    }
    return value;
  }

  /** An object field, or an empty object when absent. */
  public static ObjectNode objectOrEmpty(JsonNode parent, String field) {
    JsonNode node = parent == null ? null : parent.get(field);
    if (node == null || node.isNull()) {
      return object();
    }
    if (!node.isObject()) {
      throw JsonRpcError.invalidParams(field + " must be an object");
    }
    return (ObjectNode) node;
  }
}
