package ark.broker.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * An Ark {@code A2ATask} as far as approvals go. Ark's completions executor asks for a tool-call approval by
 * creating a task without {@code spec.a2aServerRef}, in phase {@code input-required}, with the tool calls, the
 * timeout and the agent in {@code status.protocolMetadata} (as JSON text); a decision is
 * {@code spec.input = {"decision": "approved"|"rejected"}}, which Ark's A2ATask controller acts on.
 *
 * @param decision {@code spec.input} as written there; empty while no one decided
 * @param agent the agent that asks, or null if the task does not say
 * @param reasoning the text of the task's last status message, where the agent said why; null without one
 * @param timeout Ark's approval timeout as a Go duration ({@code 5m0s}), or null
 * @param onTimeout what Ark does then ({@code reject}, {@code proceed}), or null
 */
record ApprovalTask(TaskRef ref, String uid, String resourceVersion, String phase, boolean serverTask,
                    String decision, String queryNamespace, String queryName, String agent, List<ToolCall> toolCalls,
                    String reasoning, String timeout, String onTimeout) {
  static final String INPUT_REQUIRED = "input-required";
  static final String APPROVED = "approved";
  static final String REJECTED = "rejected";

  /** An A2ATask by namespace and name. */
  record TaskRef(String namespace, String name) {
    @Override
    public String toString() {
      return namespace + "/" + name;
    }
  }

  /** @param arguments the call's arguments as the model wrote them (JSON text) */
  record ToolCall(String id, String name, String arguments) {
  }

  ApprovalTask {
    toolCalls = List.copyOf(toolCalls);
  }

  /** An approval request no one has decided yet: what the broker asks a person about. */
  boolean awaitsDecision() {
    return INPUT_REQUIRED.equals(phase) && !serverTask && !toolCalls.isEmpty() && decision.isBlank();
  }

  /**
   * Whether {@code spec.input} holds a decision. Ark's controller reads it as {@code {"decision": ...}} and takes
   * an empty decision as none yet; anything it cannot parse fails the task, so that counts as decided too.
   */
  private static boolean decides(String input) {
    if (input == null || input.isBlank()) {
      return false;
    }
    try {
      Object decision = new JsonObject(input).getValue("decision");
      return decision != null && !decision.toString().isEmpty();
    } catch (DecodeException | ClassCastException e) {
      return true;
    }
  }

  String toolNames() {
    return toolCalls.stream().map(ToolCall::name).distinct().collect(Collectors.joining(", "));
  }

  /** Reads an A2ATask as fabric8 returns it. */
  static ApprovalTask of(GenericKubernetesResource resource) {
    Map<String, Object> spec = map(resource.getAdditionalProperties().get("spec"));
    Map<String, Object> status = map(resource.getAdditionalProperties().get("status"));
    Map<String, Object> metadata = map(status.get("protocolMetadata"));
    Map<String, Object> queryRef = map(spec.get("queryRef"));
    Map<String, Object> agentRef = map(spec.get("agentRef"));
    String namespace = resource.getMetadata().getNamespace();
    String input = text(spec.get("input"));
    String agent = text(agentRef.get("name"));
    if (agent == null || agent.isEmpty()) {
      agent = contextAgent(text(metadata.get("context")));
    }
    String queryNamespace = text(queryRef.get("namespace"));
    return new ApprovalTask(new TaskRef(namespace, resource.getMetadata().getName()),
        resource.getMetadata().getUid(), resource.getMetadata().getResourceVersion(), text(status.get("phase")),
        spec.get("a2aServerRef") != null, decides(input) ? input : "",
        queryNamespace == null || queryNamespace.isEmpty() ? namespace : queryNamespace, text(queryRef.get("name")),
        agent, toolCalls(text(metadata.get("toolCalls"))), reasoning(map(status.get("lastStatusMessage"))),
        text(metadata.get("timeout")), text(metadata.get("onTimeout")));
  }

  /** {@code protocolMetadata.toolCalls}: OpenAI tool calls, {@code [{"id", "type", "function": {"name", "arguments"}}]}. */
  private static List<ToolCall> toolCalls(String json) {
    List<ToolCall> calls = new ArrayList<>();
    if (json == null || json.isBlank()) {
      return calls;
    }
    try {
      for (Object item : new JsonArray(json)) {
        if (item instanceof JsonObject call && call.getValue("function") instanceof JsonObject function
            && function.getValue("name") instanceof String name) {
          calls.add(new ToolCall(text(call.getValue("id")), name, text(function.getValue("arguments"))));
        }
      }
    } catch (DecodeException e) {
      // Not what Ark's executor writes: no tool calls to approve, so the task is not an approval request.
    }
    return calls;
  }

  /** {@code protocolMetadata.context}: the executor's ExecutionContext, whose {@code AgentName} says who asks. */
  private static String contextAgent(String json) {
    try {
      return json == null ? null : new JsonObject(json).getString("AgentName");
    } catch (DecodeException | ClassCastException e) {
      return null;
    }
  }

  private static String reasoning(Map<String, Object> message) {
    if (!(message.get("parts") instanceof List<?> parts)) {
      return null;
    }
    String text = parts.stream().map(ApprovalTask::map).filter(part -> "text".equals(part.get("kind")))
        .map(part -> text(part.get("text"))).filter(t -> t != null && !t.isBlank()).collect(Collectors.joining("\n"));
    return text.isEmpty() ? null : text;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
  }

  private static String text(Object value) {
    return value == null ? null : value.toString();
  }
}
