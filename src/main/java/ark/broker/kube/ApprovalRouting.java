package ark.broker.kube;

import ark.broker.question.ArkUri;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Set;

/**
 * Whether Ark's A2ATask approvals become questions, and who gets each: the first route whose given fields
 * (namespace, agent, tool) all match, else the default recipient and channels.
 *
 * @param routes in the order they are tried
 */
public record ApprovalRouting(boolean enabled, Route fallback, List<Route> routes) {
  private static final Set<String> ROUTE_FIELDS = Set.of("namespace", "agent", "tool", "recipient", "channels");

  /**
   * One rule; a null field matches anything.
   *
   * @param tool matches a task that asks to call a tool of this name (among others)
   */
  public record Route(String namespace, String agent, String tool, String recipient, List<String> channels) {
    public Route {
      channels = List.copyOf(channels);
    }

    boolean matches(ApprovalTask task) {
      return (namespace == null || namespace.equals(task.ref().namespace()))
          && (agent == null || agent.equals(task.agent()))
          && (tool == null || task.toolCalls().stream().anyMatch(call -> tool.equals(call.name())));
    }
  }

  public ApprovalRouting {
    routes = List.copyOf(routes);
  }

  /** Where {@code task}'s question goes. */
  Route routeFor(ApprovalTask task) {
    return routes.stream().filter(route -> route.matches(task)).findFirst().orElse(fallback);
  }

  static ApprovalRouting from(JsonObject approvals) {
    Route fallback = new Route(null, null, null, recipient("kube.approvals.recipient", approvals.getString("recipient")),
        channels(approvals.getJsonArray("channels")));
    JsonArray rules = approvals.getJsonArray("routes");
    List<Route> routes = rules.stream().map(rule -> {
      if (!(rule instanceof JsonObject fields) || !ROUTE_FIELDS.containsAll(fields.fieldNames())) {
        throw new IllegalArgumentException("each of kube.approvals.routes must be an object with some of "
            + ROUTE_FIELDS + ", not " + rule);
      }
      return new Route(fields.getString("namespace"), fields.getString("agent"), fields.getString("tool"),
          recipient("a recipient in kube.approvals.routes", fields.getString("recipient", fallback.recipient())),
          fields.containsKey("channels") ? channels(fields.getJsonArray("channels")) : fallback.channels());
    }).toList();
    return new ApprovalRouting(approvals.getBoolean("enabled"), fallback, routes);
  }

  private static String recipient(String what, String uri) {
    try {
      return ArkUri.require(what, uri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static List<String> channels(JsonArray names) {
    return names.stream().map(String::valueOf).toList();
  }
}
