package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** A JSON-RPC error to answer a request with; handlers throw or fail futures with it. */
public final class JsonRpcError extends RuntimeException {
  public static final int PARSE_ERROR = -32700;
  public static final int INVALID_REQUEST = -32600;
  public static final int METHOD_NOT_FOUND = -32601;
  public static final int INVALID_PARAMS = -32602;
  public static final int INTERNAL_ERROR = -32603;
  /** Transport-level refusals (bad headers, no session): the TypeScript SDK's code for them. */
  public static final int TRANSPORT = -32000;
  public static final int SESSION_NOT_FOUND = -32001;
  public static final int RESOURCE_NOT_FOUND = -32002;

  private final int code;
  private final JsonNode data;

  public JsonRpcError(int code, String message, JsonNode data) {
    super(message, null, false, false);
    this.code = code;
    this.data = data;
  }

  public static JsonRpcError invalidParams(String message) {
    return new JsonRpcError(INVALID_PARAMS, message, null);
  }

  public static JsonRpcError methodNotFound(String method) {
    return new JsonRpcError(METHOD_NOT_FOUND, "Method not found: " + method, null);
  }

  public int code() {
    return code;
  }

  public ObjectNode toJson() {
    ObjectNode error = McpJson.object().put("code", code).put("message", getMessage());
    if (data != null) {
      error.set("data", data);
    }
    return error;
  }
}
