package ark.broker.kube;

import ark.broker.channel.ChannelTesting;
import ark.broker.channel.FakeSlack;
import ark.broker.testing.Identities;
import ark.broker.testing.TestBroker;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static ark.broker.testing.Eventually.until;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ark's tool-call approvals through the broker, against the mock API server with Ark's A2ATask CRD: a task the
 * completions executor leaves in {@code input-required} becomes a question for the reviewers, and their answer
 * is written back as ark-api writes it.
 */
class ApprovalsTest extends AgainstMockCluster {
  private static final String NAMESPACE = MockCluster.NAMESPACE;
  private static final String ANN_SLACK = "U0ANN";

  /** Authentication on, approvals for Ann's team, and a long resync: only the watch makes things prompt. */
  private TestBroker startBroker() throws Exception {
    return startBroker(new JsonObject(), new JsonObject());
  }

  /** The same, with {@code approvals} settings and {@code overrides} merged in. */
  private TestBroker startBroker(JsonObject approvals, JsonObject overrides) throws Exception {
    JsonObject config = cluster.brokerConfig(dir).mergeIn(Identities.config(dir), true).mergeIn(overrides, true);
    config.getJsonObject("kube").put("resyncSeconds", 3600)
        .put("approvals", new JsonObject().put("recipient", Identities.TEAM).mergeIn(approvals));
    broker = TestBroker.start(dir.resolve("data"), config);
    return broker;
  }

  /** An A2ATask as Ark's executor and controller leave it when a tool call needs approval. */
  private void createApprovalTask(String name, String tool, String arguments) {
    GenericKubernetesResource task = new GenericKubernetesResourceBuilder()
        .withApiVersion("ark.mckinsey.com/v1alpha1").withKind("A2ATask")
        .withNewMetadata().withNamespace(NAMESPACE).withName(name).endMetadata()
        .addToAdditionalProperties("spec", Map.of("taskId", name.substring("a2a-task-".length()),
            "queryRef", Map.of("name", "release-query", "namespace", NAMESPACE),
            "agentRef", Map.of("name", "reviewer", "namespace", NAMESPACE)))
        .build();
    tasks().resource(task).create();
    JsonArray toolCalls = new JsonArray().add(new JsonObject().put("id", "call_1").put("type", "function")
        .put("function", new JsonObject().put("name", tool).put("arguments", arguments)));
    setStatus(name, new JsonObject()
        .put("phase", "input-required").put("protocolState", "input-required")
        .put("startTime", "2026-11-22T10:30:00Z")
        .put("protocolMetadata", new JsonObject().put("toolCalls", toolCalls.encode()).put("timeout", "5m0s")
            .put("onTimeout", "reject").put("context", "{\"AgentName\":\"reviewer\",\"AgentNamespace\":\"agents\"}"))
        .put("lastStatusMessage", new JsonObject().put("role", "agent").put("parts", new JsonArray()
            .add(new JsonObject().put("kind", "text").put("text", "The release notes must be written first.")))));
  }

  private void setStatus(String name, JsonObject status) {
    tasks().withName(name).subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), new JsonObject().put("status", status).encode());
  }

  private io.fabric8.kubernetes.client.dsl.NonNamespaceOperation<GenericKubernetesResource,
      io.fabric8.kubernetes.api.model.GenericKubernetesResourceList,
      io.fabric8.kubernetes.client.dsl.Resource<GenericKubernetesResource>> tasks() {
    return cluster.client.genericKubernetesResources(A2ATaskApi.A2A_TASKS).inNamespace(NAMESPACE);
  }

  private JsonObject spec(String name) {
    return JsonObject.mapFrom(tasks().list().getItems().stream().filter(t -> t.getMetadata().getName().equals(name))
        .findFirst().orElseThrow().getAdditionalProperties().get("spec"));
  }

  /** The approval questions Ann sees about task {@code name}. */
  private List<JsonObject> questionsAbout(String name) throws Exception {
    return broker.as(Identities.HUMAN).listAll("").stream()
        .filter(q -> q.getString("context", "").startsWith("Ark A2ATask " + NAMESPACE + "/" + name + " ")).toList();
  }

  private JsonObject awaitQuestion(String name, String status) throws Exception {
    return until("a " + status + " question about " + name, () -> questionsAbout(name),
        found -> found.size() == 1 && status.equals(found.get(0).getString("status"))).get(0);
  }

  @Test
  void anApprovalBecomesAQuestionAndItsAnswerIsWrittenBackAsArkApiWritesIt() throws Exception {
    startBroker();
    createApprovalTask("a2a-task-1", "write_file", "{\"path\":\"/tmp/notes.txt\"}");

    JsonObject question = awaitQuestion("a2a-task-1", "pending");
    assertThat(question.getString("recipient")).isEqualTo(Identities.TEAM);
    assertThat(question.getString("sender")).isEqualTo("ark://agents/agents/reviewer");
    assertThat(question.getString("kind")).isEqualTo("approval");
    assertThat(question.getJsonArray("options")).isNull();
    assertThat(question.getString("content")).isEqualTo(
        "Agent reviewer wants to call write_file for Query agents/release-query. Approve or reject?");
    assertThat(question.getString("context")).contains("Tool write_file with arguments: {\"path\":\"/tmp/notes.txt\"}",
        "The agent says: The release notes must be written first.", "after 5m0s (reject)");

    String id = question.getString("id");
    JsonObject answered = broker.as(Identities.HUMAN).patch("/questions/" + id,
        "{\"decision\":{\"action\":\"approved\",\"reason\":\"notes first is right\"}}").json();
    assertThat(answered.getJsonObject("decision").getMap()).containsEntry("action", "approved")
        .containsEntry("reason", "notes first is right").containsEntry("decidedBy", Identities.HUMAN_NAME)
        .containsEntry("decidedAt", answered.getString("answeredAt"));

    until("the decision on the task", () -> spec("a2a-task-1").getString("input"),
        input -> "{\"decision\": \"approved\"}".equals(input));
    JsonArray history = broker.as(Identities.HUMAN).get("/questions/" + id + "/events").json().getJsonArray("items");
    assertThat(history.getJsonObject(1).getString("type")).isEqualTo("question_answered");
    assertThat(history.getJsonObject(1).getJsonObject("by").getString("principal")).isEqualTo(Identities.HUMAN_NAME);
  }

  @Test
  void anApprovalAnsweredInSlackIsWrittenBackAsArkApiWritesIt() throws Exception {
    try (FakeSlack slack = FakeSlack.start()) {
      // Ann is the Slack account U0ANN and one of the approvers.
      JsonObject channels = ChannelTesting.config(slack, null, null);
      JsonObject directory = channels.getJsonObject("channels").getJsonObject("directory");
      directory.getJsonObject("users").put("ann", new JsonObject().put("slack", ANN_SLACK));
      directory.getJsonObject("teams").put(Identities.TEAM.substring("ark://teams/".length()), new JsonArray().add("ann"));
      startBroker(new JsonObject().put("channels", new JsonArray().add("slack")), channels);
      createApprovalTask("a2a-task-8", "deploy", "{\"env\":\"prod\"}");

      String id = awaitQuestion("a2a-task-8", "pending").getString("id");
      until("the approval posted in Slack", () -> broker.as(Identities.ADMIN).get("/questions/" + id).json(),
          question -> ChannelTesting.delivery(question, "slack") != null);
      FakeSlack.Message post = slack.messagesFor(id).get(0);
      // Approve opens a modal for the reason; submitting it decides.
      TestBroker.Response clicked = ChannelTesting.slack(broker, ChannelTesting.click(post, "approved", ANN_SLACK));
      JsonObject modal = slack.await(request -> request.path().endsWith("/views.open") && request.body().contains(id),
          java.time.Duration.ofSeconds(10)).json().getJsonObject("view");
      JsonObject submission = ChannelTesting.submission(modal, ANN_SLACK, "");
      submission.getJsonObject("view").put("state", new JsonObject().put("values", new JsonObject()
          .put("ark_reason", new JsonObject().put("ark_value", new JsonObject().put("type", "plain_text_input")
              .put("value", "tested in staging")))));
      TestBroker.Response submitted = ChannelTesting.slack(broker, submission);

      assertThat(clicked.status()).as(clicked.body()).isEqualTo(200);
      assertThat(submitted.status()).as(submitted.body()).isEqualTo(200);
      until("the decision on the task", () -> spec("a2a-task-8").getString("input"),
          input -> "{\"decision\": \"approved\"}".equals(input));
      JsonObject by = ChannelTesting.whoAnswered(broker.as(Identities.ADMIN), id);
      assertThat(by.getString("principal")).isEqualTo(Identities.HUMAN_NAME);
      assertThat(by.getString("userAgent")).isEqualTo("slack:" + ANN_SLACK);
    }
  }

  /** Creates an approval task, answers its question as Ann and returns what then stands in the task's spec.input. */
  private String decisionAfterAnswering(String task, JsonObject answer) throws Exception {
    createApprovalTask(task, "delete_branch", "{}");
    String id = awaitQuestion(task, "pending").getString("id");
    broker.as(Identities.HUMAN).patch("/questions/" + id, answer.encode());
    return until("a decision on " + task, () -> spec(task).getString("input"), input -> input != null);
  }

  @Test
  void aRejectionIsWrittenAsRejected() throws Exception {
    startBroker();

    assertThat(decisionAfterAnswering("a2a-task-2", new JsonObject().put("decision",
        new JsonObject().put("action", "rejected").put("reason", "not on a Friday"))))
        .isEqualTo("{\"decision\": \"rejected\"}");
  }

  @Test
  void aClientThatOnlyKnowsResponseCanStillDecide() throws Exception {
    startBroker();

    assertThat(decisionAfterAnswering("a2a-task-2b", new JsonObject().put("response", "reject")))
        .isEqualTo("{\"decision\": \"rejected\"}");
  }

  @Test
  void aTaskDecidedElsewhereOrDeletedSettlesItsQuestion() throws Exception {
    startBroker();
    createApprovalTask("a2a-task-3", "write_file", "{}");
    createApprovalTask("a2a-task-4", "write_file", "{}");
    awaitQuestion("a2a-task-3", "pending");
    awaitQuestion("a2a-task-4", "pending");

    // Someone approves in Ark's dashboard (ark-api's patch), and Ark's controller completes the task.
    tasks().withName("a2a-task-3").patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"spec\":{\"input\":\"{\\\"decision\\\": \\\"approved\\\"}\"}}");
    setStatus("a2a-task-3", new JsonObject().put("phase", "completed"));
    tasks().withName("a2a-task-4").delete();

    awaitQuestion("a2a-task-3", "cancelled");
    awaitQuestion("a2a-task-4", "cancelled");
  }

  @Test
  void aRestartedBrokerDoesNotAskTwice() throws Exception {
    startBroker();
    createApprovalTask("a2a-task-5", "write_file", "{}");
    String id = awaitQuestion("a2a-task-5", "pending").getString("id");
    broker.close();

    startBroker();
    createApprovalTask("a2a-task-6", "write_file", "{}");
    awaitQuestion("a2a-task-6", "pending");

    assertThat(questionsAbout("a2a-task-5")).singleElement().satisfies(q -> assertThat(q.getString("id")).isEqualTo(id));
  }

  @Test
  void theBrokerUsesExactlyTheRightsDocumentedForA2ATasks() throws Exception {
    startBroker();
    decisionAfterAnswering("a2a-task-7", new JsonObject().put("response", "approve"));

    // The Role of k8s/base grants them (docs/kubernetes.md, RBAC: a2atasks get, list, watch, patch).
    Role role = cluster.client.rbac().roles().load(Path.of("k8s/base/role.yaml").toFile()).item();
    Set<String> granted = new TreeSet<>();
    role.getRules().stream().filter(rule -> rule.getResources().contains("a2atasks"))
        .forEach(rule -> rule.getVerbs().forEach(verb -> granted.add("a2atasks " + verb)));

    assertThat(cluster.rightsTheBrokerUsed().stream().filter(right -> right.startsWith("a2atasks")))
        .containsExactlyInAnyOrderElementsOf(granted)
        .containsExactlyInAnyOrder("a2atasks get", "a2atasks list", "a2atasks watch", "a2atasks patch");
  }
}
