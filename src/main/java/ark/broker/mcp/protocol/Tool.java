package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

/**
 * A tool: its {@code tools/list} entry and what calling it does.
 *
 * @param definition name, description, inputSchema and the rest, as {@code tools/list} shows them
 */
public record Tool(ObjectNode definition, Handler handler) {

  /** What a call does. A tool that declares {@code execution.taskSupport} also runs as a task. */
  public interface Handler {
    /** Returns a CallToolResult; failures of the input itself should be {@code isError} results. */
    Future<ObjectNode> call(RequestContext ctx, ObjectNode arguments);

    /** Returns a CreateTaskResult at once; the tool result comes later through {@code tasks/result}. */
    default Future<ObjectNode> callAsTask(RequestContext ctx, ObjectNode arguments, ObjectNode task) {
      throw new JsonRpcError(JsonRpcError.METHOD_NOT_FOUND, "this tool cannot run as a task", null);
    }
  }

  public String name() {
    return definition.get("name").asText();
  }

  /** forbidden (the default), optional or required. */
  public String taskSupport() {
    return definition.path("execution").path("taskSupport").asText("forbidden");
  }
}
