package ark.broker.kube;

import ark.broker.kube.ApprovalTask.TaskRef;
import ark.broker.kube.ApprovalTask.ToolCall;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Who is asked to approve what: the first matching route, else the default. */
class ApprovalRoutingTest {
  private static final JsonObject CONFIG = new JsonObject()
      .put("enabled", true).put("recipient", "ark://teams/approvers").put("channels", new JsonArray().add("slack"))
      .put("routes", new JsonArray()
          .add(new JsonObject().put("namespace", "prod").put("tool", "deploy").put("recipient", "ark://teams/sre")
              .put("channels", new JsonArray().add("slack:ops")))
          .add(new JsonObject().put("agent", "writer").put("recipient", "ark://users/ann")));

  private static ApprovalTask task(String namespace, String agent, String... tools) {
    return new ApprovalTask(new TaskRef(namespace, "a2a-task-1"), "uid-1", "7", "input-required", false, "",
        namespace, "q", agent, java.util.Arrays.stream(tools).map(t -> new ToolCall("call", t, "{}")).toList(),
        null, null, null);
  }

  @Test
  void theFirstRouteWhoseFieldsAllMatchWinsElseTheDefault() {
    ApprovalRouting routing = ApprovalRouting.from(CONFIG);

    assertThat(routing.routeFor(task("prod", "writer", "read", "deploy")).recipient()).isEqualTo("ark://teams/sre");
    assertThat(routing.routeFor(task("prod", "writer", "deploy")).channels()).containsExactly("slack:ops");
    assertThat(routing.routeFor(task("dev", "writer", "deploy")).recipient()).isEqualTo("ark://users/ann");
    assertThat(routing.routeFor(task("dev", "writer", "deploy")).channels()).as("the default's").containsExactly("slack");
    assertThat(routing.routeFor(task("dev", "reviewer", "deploy")).recipient()).isEqualTo("ark://teams/approvers");
  }

  @Test
  void aMalformedRouteOrRecipientStopsTheStartWithTheKey() {
    assertThatThrownBy(() -> ApprovalRouting.from(CONFIG.copy().put("routes", new JsonArray()
        .add(new JsonObject().put("team", "sre")))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kube.approvals.routes");
    assertThatThrownBy(() -> ApprovalRouting.from(CONFIG.copy().put("recipient", "sre")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kube.approvals.recipient");
  }
}
