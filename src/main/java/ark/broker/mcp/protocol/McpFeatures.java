package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/** What a server offers: tools, resources, prompts, completions, tasks, and how to resume cut requests. */
public final class McpFeatures {
  /** Completes a prompt or resource-template argument: {@code {values, total?, hasMore?}}. */
  public interface Completions {
    Future<ObjectNode> complete(RequestContext ctx, ObjectNode ref, ObjectNode argument);
  }

  final ObjectNode serverInfo;
  final String instructions;
  final Map<String, Tool> tools = new LinkedHashMap<>();
  final Map<String, Prompt> prompts = new LinkedHashMap<>();
  final List<ResourceProvider> resources = new ArrayList<>();
  final Map<String, ResumeKind> resumers = new LinkedHashMap<>();
  TaskStore tasks;
  Function<Throwable, JsonRpcError> failures = failure -> null;
  Completions completions = (ctx, ref, argument) ->
      Future.succeededFuture(McpJson.object().<ObjectNode>set("values", McpJson.array()).put("hasMore", false));

  public McpFeatures(String name, String version, String instructions) {
    this.serverInfo = McpJson.object().put("name", name).put("version", version);
    this.instructions = instructions;
  }

  public McpFeatures tool(Tool tool) {
    tools.put(tool.name(), tool);
    return this;
  }

  public McpFeatures prompt(Prompt prompt) {
    prompts.put(prompt.name(), prompt);
    return this;
  }

  public McpFeatures resources(ResourceProvider provider) {
    resources.add(provider);
    return this;
  }

  public McpFeatures tasks(TaskStore store) {
    this.tasks = store;
    return this;
  }

  public McpFeatures completions(Completions provider) {
    this.completions = provider;
    return this;
  }

  /**
   * How the features' own failures (a store refusing a request, say) look to clients: the error to answer
   * with, or null for an internal error.
   */
  public McpFeatures failures(Function<Throwable, JsonRpcError> translation) {
    this.failures = translation;
    return this;
  }

  /** How a cut stream of {@code kind} is finished: {@code accepts} is true for exactly the states such a stream carries. */
  public McpFeatures resumer(String kind, Predicate<JsonNode> accepts, Resumer resumer) {
    resumers.put(kind, new ResumeKind(accepts, resumer));
    return this;
  }

  record ResumeKind(Predicate<JsonNode> accepts, Resumer resumer) {
  }

  ObjectNode capabilities() {
    ObjectNode capabilities = McpJson.object();
    capabilities.putObject("tools").put("listChanged", false);
    capabilities.putObject("resources").put("subscribe", true).put("listChanged", false);
    capabilities.putObject("prompts").put("listChanged", false);
    capabilities.putObject("logging");
    capabilities.putObject("completions");
    if (tasks != null) {
      ObjectNode taskCapabilities = capabilities.putObject("tasks");
      taskCapabilities.putObject("list");
      taskCapabilities.putObject("cancel");
      taskCapabilities.putObject("requests").putObject("tools").putObject("call");
    }
    return capabilities;
  }
}
