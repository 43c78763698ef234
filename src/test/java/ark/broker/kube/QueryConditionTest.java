package ark.broker.kube;

import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static ark.broker.testing.Eventually.until;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default {@code kube.queryStatusMode: condition} against Ark's Query CRD as Ark ships it: the broker's own
 * condition on a Query while it has pending questions, next to what Ark's controller writes.
 */
class QueryConditionTest extends AgainstMockCluster {
  private static final String TYPE = "ark.mckinsey.com/AwaitingHuman";

  private void startBroker() throws Exception {
    JsonObject config = cluster.brokerConfig(dir);
    config.getJsonObject("kube").put("approvals", new JsonObject().put("enabled", false));
    broker = TestBroker.start(dir.resolve("data"), config);
  }

  private String ask(String queryName, String recipient) throws Exception {
    return broker.ask("{'recipient':'" + recipient + "','content':'Deploy?','query':{'namespace':'"
        + MockCluster.NAMESPACE + "','name':'" + queryName + "'}}").getString("id");
  }

  private static JsonObject condition(JsonObject status, String type) {
    JsonArray conditions = status.getJsonArray("conditions", new JsonArray());
    return conditions.stream().map(JsonObject.class::cast).filter(c -> type.equals(c.getString("type"))).findFirst()
        .orElse(null);
  }

  private JsonObject awaitCondition(String queryName, String status, String messagePart) throws Exception {
    return until("Query " + queryName + " condition " + status + " naming " + messagePart,
        () -> condition(cluster.status(queryName), TYPE),
        c -> c != null && status.equals(c.getString("status")) && c.getString("message").contains(messagePart));
  }

  /** What Ark's controller writes when a Query starts running: its phase and its own condition. */
  private static JsonObject controllerStatus(String phase, String reason) {
    return new JsonObject().put("phase", phase).put("conditions", new JsonArray().add(new JsonObject()
        .put("type", "QueryCompleted").put("status", "False").put("reason", reason).put("message", "Query is running")
        .put("lastTransitionTime", "2026-11-22T10:00:00Z").put("observedGeneration", 1)));
  }

  @Test
  void theConditionAppearsWhileQuestionsArePendingAndTurnsFalseWhenNoneIsLeft() throws Exception {
    cluster.createQuery("release-1", "running");
    cluster.setStatus(MockCluster.NAMESPACE, "release-1", controllerStatus("running", "QueryRunning"));
    startBroker();

    String first = ask("release-1", "ark://users/john");
    JsonObject shown = awaitCondition("release-1", "True", first);
    assertThat(shown.getString("reason")).isEqualTo("QuestionPending");
    assertThat(shown.getString("message")).isEqualTo("Waiting for an answer to question " + first + " for ark://users/john");
    String since = shown.getString("lastTransitionTime");
    assertThat(since).isNotBlank();

    String second = ask("release-1", "ark://teams/ops");
    JsonObject both = awaitCondition("release-1", "True", second);
    assertThat(both.getString("message")).contains(first + " for ark://users/john", second + " for ark://teams/ops");
    assertThat(both.getString("lastTransitionTime")).as("still awaiting: no transition").isEqualTo(since);

    assertThat(broker.patch("/questions/" + first, "{\"response\":\"yes\"}").status()).isEqualTo(200);
    assertThat(broker.delete("/questions/" + second).status()).isEqualTo(200);
    JsonObject cleared = awaitCondition("release-1", "False", "No question");
    assertThat(cleared.getString("reason")).isEqualTo("NoQuestionPending");

    JsonObject status = cluster.status("release-1");
    assertThat(status.getString("phase")).as("phase is the controller's").isEqualTo("running");
    assertThat(condition(status, "QueryCompleted")).as("the controller's condition is untouched")
        .isEqualTo(controllerStatus("running", "QueryRunning").getJsonArray("conditions").getJsonObject(0));
  }

  @Test
  void aControllerUpdateBetweenReadAndWriteIsRetriedAndNeitherSideLosesItsFields() throws Exception {
    cluster.createQuery("release-2", "running");
    cluster.setStatus(MockCluster.NAMESPACE, "release-2", controllerStatus("running", "QueryRunning"));
    String readBeforeTheController = cluster.json("release-2");
    // The controller moves on (Ark's Status().Update of a re-read Query): new phase, its condition rewritten.
    cluster.setStatus(MockCluster.NAMESPACE, "release-2", controllerStatus("input-required", "QueryInputRequired"));
    cluster.server.expect().get().withPath(MockCluster.queryPath("release-2")).andReturn(200, readBeforeTheController).once();
    startBroker();

    String id = ask("release-2", "ark://users/john");

    awaitCondition("release-2", "True", id);
    JsonObject status = cluster.status("release-2");
    assertThat(status.getString("phase")).isEqualTo("input-required");
    assertThat(condition(status, "QueryCompleted").getString("reason")).isEqualTo("QueryInputRequired");
    assertThat(status.getJsonArray("conditions")).hasSize(2);
    assertThat(reconciles("failed")).as("the write based on the stale read was refused with 409").isEqualTo(1);
  }

  @Test
  void aStockQueryCrdRefusesTheOptInWaitingPhaseAndAcceptsTheCondition() {
    CrdSchema stock = CrdSchema.load(MockCluster.QUERY_CRD);
    JsonObject condition = new JsonObject().put("type", TYPE).put("status", "True").put("reason", "QuestionPending")
        .put("message", "Waiting").put("lastTransitionTime", "2026-11-22T10:30:05Z").put("observedGeneration", 1);

    assertThat(stock.violations(query(new JsonObject().put("phase", "waiting")))).isNotEmpty();
    assertThat(stock.violations(query(new JsonObject().put("waitingFor", new JsonObject())))).isNotEmpty();
    assertThat(stock.violations(query(new JsonObject().put("conditions", new JsonArray().add(condition))))).isEmpty();
    assertThat(stock.violations(query(new JsonObject().put("conditions", new JsonArray()
        .add(condition.copy().put("status", "Yes")))))).as("enums are checked").isNotEmpty();
    assertThat(CrdSchema.load(MockCluster.QUERY_CRD, MockCluster.WAITING_PHASE_PATCH)
        .violations(query(new JsonObject().put("phase", "waiting")))).isEmpty();
  }

  private static com.fasterxml.jackson.databind.JsonNode query(JsonObject status) {
    return new JsonObject().put("apiVersion", "ark.mckinsey.com/v1alpha1").put("kind", "Query")
        .put("metadata", new JsonObject().put("name", "q")).put("spec", new JsonObject().put("input", "Deploy?"))
        .put("status", status).mapTo(com.fasterxml.jackson.databind.JsonNode.class);
  }

  private long reconciles(String outcome) throws Exception {
    Matcher count = Pattern.compile("ark_broker_query_status_reconciles_total\\{outcome=\"" + outcome + "\"[^}]*} (\\S+)")
        .matcher(broker.get("/metrics").body());
    return count.find() ? (long) Double.parseDouble(count.group(1)) : 0;
  }
}
