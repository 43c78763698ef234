package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * One JSON-RPC 2.0 message as a client sent it: a request (method and id), a notification (method,
 * no id) or a response to a request of ours (id with result or error). Checked on the way in, so a
 * malformed envelope is refused with the precise reason.
 */
public record JsonRpcMessage(String method, JsonNode id, ObjectNode params, JsonNode result, JsonNode error) {

  public boolean isRequest() {
    return method != null && id != null;
  }

  public boolean isNotification() {
    return method != null && id == null;
  }

  public boolean isResponse() {
    return method == null;
  }

  public static JsonRpcMessage parse(JsonNode node) {
    if (node == null || node.isArray()) {
      throw new JsonRpcError(JsonRpcError.INVALID_REQUEST,
          "Invalid Request: JSON-RPC batches are not supported; send one message per request", null);
    }
    if (!node.isObject()) {
      throw new JsonRpcError(JsonRpcError.INVALID_REQUEST, "Invalid Request: a message must be a JSON object", null);
    }
    if (!"2.0".equals(node.path("jsonrpc").asText(null)) || !node.get("jsonrpc").isTextual()) {
      throw new JsonRpcError(JsonRpcError.INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"", null);
    }
    JsonNode id = node.get("id");
    if (id != null && !(id.isTextual() || id.isIntegralNumber())) {
      throw new JsonRpcError(JsonRpcError.INVALID_REQUEST, "Invalid Request: id must be a string or an integer", null);
    }
    JsonNode method = node.get("method");
    if (method != null) {
      if (!method.isTextual() || method.textValue().isEmpty()) {
        throw new JsonRpcError(JsonRpcError.INVALID_REQUEST, "Invalid Request: method must be a non-empty string", null);
      }
      JsonNode params = node.get("params");
      if (params != null && !params.isNull() && !params.isObject()) {
        throw new JsonRpcError(JsonRpcError.INVALID_REQUEST, "Invalid Request: params must be an object", null);
      }
      return new JsonRpcMessage(method.textValue(), id,
          params == null || params.isNull() ? McpJson.object() : (ObjectNode) params, null, null);
    }
    if (id == null || (node.has("result") == node.has("error"))) {
      throw new JsonRpcError(JsonRpcError.INVALID_REQUEST,
          "Invalid Request: a message needs a method, or an id with exactly one of result and error", null);
    }
    return new JsonRpcMessage(null, id, null, node.get("result"), node.get("error"));
  }

  public static ObjectNode response(JsonNode id, JsonNode result) {
    ObjectNode message = McpJson.object().put("jsonrpc", "2.0");
    message.set("id", id);
    message.set("result", result);
    return message;
  }

  public static ObjectNode errorResponse(JsonNode id, JsonRpcError error) {
    ObjectNode message = McpJson.object().put("jsonrpc", "2.0");
    message.set("id", id == null ? McpJson.MAPPER.nullNode() : id);
    message.set("error", error.toJson());
    return message;
  }

  public static ObjectNode notification(String method, JsonNode params) {
    ObjectNode message = McpJson.object().put("jsonrpc", "2.0").put("method", method);
    if (params != null) {
      message.set("params", params);
    }
    return message;
  }

  public static ObjectNode request(JsonNode id, String method, JsonNode params) {
    ObjectNode message = notification(method, params);
    message.set("id", id);
    return message;
  }
}
