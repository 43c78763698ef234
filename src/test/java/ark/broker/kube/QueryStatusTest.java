package ark.broker.kube;

import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.WorkerStatus;
import ark.broker.testing.TestBroker;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static ark.broker.testing.Eventually.until;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A whole broker against fabric8's mock API server (CRUD mode, Ark's Query CRD with the opt-in waiting-phase
 * patch): what a Query's status shows in {@code kube.queryStatusMode: phase} while its questions are pending, and
 * after.
 */
class QueryStatusTest extends AgainstMockCluster {
  KubernetesMockServer server;
  KubernetesClient client;

  @Override
  MockCluster newCluster() {
    return MockCluster.withWaitingPhase();
  }

  @BeforeEach
  void start() {
    server = cluster.server;
    client = cluster.client;
  }

  /** The opt-in mode these tests cover, on the CRD that carries it; A2ATask approvals are ApprovalsTest's. */
  private TestBroker startBroker() throws Exception {
    JsonObject config = cluster.brokerConfig(dir);
    config.getJsonObject("kube").put("queryStatusMode", "phase").put("approvals", new JsonObject().put("enabled", false));
    return TestBroker.start(dir.resolve("data"), config);
  }

  /** Creates the Queries, running, and starts a broker that manages their namespace. */
  private void startBrokerWithRunning(String... queryNames) throws Exception {
    for (String name : queryNames) {
      cluster.createQuery(name, "running");
    }
    broker = startBroker();
  }

  private JsonObject ask(String queryName, String toolCallId, String extra) throws Exception {
    return broker.ask("{'recipient':'ark://users/john','content':'Deploy?','toolCallId':'" + toolCallId + "',"
        + "'query':{'namespace':'" + MockCluster.NAMESPACE + "','name':'" + queryName + "'}" + extra + "}");
  }

  private JsonObject awaitWaitingFor(String queryName, String questionId) throws Exception {
    return until("Query " + queryName + " waiting for " + questionId, () -> cluster.status(queryName),
        status -> "waiting".equals(status.getString("phase")) && status.getJsonObject("waitingFor") != null
            && questionId.equals(status.getJsonObject("waitingFor").getJsonObject("question").getString("id")));
  }

  /**
   * Waits until the Query runs and checks {@code waitingFor} is gone with {@code getValue(..) == null}, because
   * the API server deletes a key a merge patch sets to null, while the mock keeps it as null.
   */
  private void awaitReleased(String queryName) throws Exception {
    JsonObject status = until("Query " + queryName + " running", () -> cluster.status(queryName),
        running -> "running".equals(running.getString("phase")));
    assertThat(status.getValue("waitingFor")).as("Query %s waiting for", queryName).isNull();
  }

  private void answer(String questionId) throws Exception {
    assertThat(broker.patch("/questions/" + questionId, "{\"response\":\"yes\"}").status()).isEqualTo(200);
  }

  @Test
  void anAskSetsTheQueryWaitingAndItsAnswerSetsItRunningAgain() throws Exception {
    startBrokerWithRunning("release-1");

    JsonObject question = ask("release-1", "call_abc123", "");
    String id = question.getString("id");
    JsonObject waiting = awaitWaitingFor("release-1", id);

    JsonObject waitingFor = waiting.getJsonObject("waitingFor");
    assertThat(waitingFor.getString("taskId")).isEqualTo(id);
    assertThat(waitingFor.getString("toolCallId")).isEqualTo("call_abc123");
    assertThat(waitingFor.getString("since"))
        .isEqualTo(Instant.parse(question.getString("createdAt")).truncatedTo(ChronoUnit.SECONDS).toString());

    answer(id);
    awaitReleased("release-1");
  }

  @Test
  void twoPendingQuestionsKeepTheQueryWaitingUntilBothAreAnswered() throws Exception {
    startBrokerWithRunning("release-2");

    String first = ask("release-2", "call_1", "").getString("id");
    String since = awaitWaitingFor("release-2", first).getJsonObject("waitingFor").getString("since");
    String second = ask("release-2", "call_2", "").getString("id");

    answer(first);
    JsonObject stillWaiting = awaitWaitingFor("release-2", second);
    assertThat(stillWaiting.getJsonObject("waitingFor").getString("toolCallId")).isEqualTo("call_2");
    assertThat(stillWaiting.getJsonObject("waitingFor").getString("since"))
        .as("the Query has been waiting since its first question").isEqualTo(since);

    answer(second);
    awaitReleased("release-2");
  }

  @Test
  void aCancelledOrAnExpiredQuestionReleasesTheQuery() throws Exception {
    startBrokerWithRunning("release-3");

    String cancelled = ask("release-3", "call_1", "").getString("id");
    awaitWaitingFor("release-3", cancelled);
    assertThat(broker.delete("/questions/" + cancelled).status()).isEqualTo(200);
    awaitReleased("release-3");

    String expiring = ask("release-3", "call_2", ",'ttlSeconds':1").getString("id");
    awaitWaitingFor("release-3", expiring);
    awaitReleased("release-3");
    assertThat(broker.get("/questions/" + expiring).json().getString("status")).isEqualTo("expired");
  }

  @Test
  void aFinishedQueryAndAQueryOutsideTheManagedNamespacesAreLeftAlone() throws Exception {
    cluster.createQuery("finished", "done");
    cluster.createQuery("elsewhere", "other", "running");
    broker = startBroker();

    ask("finished", "call_1", "");
    broker.ask("{'recipient':'ark://users/john','content':'Deploy?','query':{'namespace':'elsewhere','name':'other'}}");
    until("the reconciler to see the finished Query", () -> reconciles("terminal"), count -> count >= 1);
    until("the reconciler to skip the unmanaged namespace", () -> reconciles("unwatched"), count -> count >= 1);

    assertThat(cluster.status("finished")).isEqualTo(new JsonObject().put("phase", "done"));
    assertThat(cluster.status("elsewhere", "other")).isEqualTo(new JsonObject().put("phase", "running"));
    assertThat(reconciles("patched")).isZero();
  }

  @Test
  void aQueryFinishedBetweenReadAndPatchIsNotWrittenOver() throws Exception {
    cluster.createQuery("racing", "running");
    String readBeforeItFinished = cluster.json("racing");
    cluster.setStatus(MockCluster.NAMESPACE, "racing", new JsonObject().put("phase", "done"));
    server.expect().get().withPath(MockCluster.queryPath("racing")).andReturn(200, readBeforeItFinished).once();
    broker = startBroker();

    ask("racing", "call_1", "");

    until("the reconciler to read the Query again and see it done", () -> reconciles("terminal"), count -> count >= 1);
    assertThat(reconciles("failed")).as("the patch based on the old read was refused").isEqualTo(1);
    assertThat(cluster.status("racing")).isEqualTo(new JsonObject().put("phase", "done"));
  }

  @Test
  void aMissingOrDeletedQueryIsReportedOnceAndDoesNotStopTheOthers() throws Exception {
    ListAppender<ILoggingEvent> logged = captureLog();
    startBrokerWithRunning("short-lived", "release-4");

    String first = ask("short-lived", "call_1", "").getString("id");
    awaitWaitingFor("short-lived", first);
    cluster.deleteQuery("short-lived");
    ask("short-lived", "call_2", "");
    ask("short-lived", "call_3", "");
    ask("never-created", "call_1", "");
    until("the reconciler to find the Queries missing", () -> reconciles("missing"), count -> count >= 3);

    String other = ask("release-4", "call_1", "").getString("id");
    awaitWaitingFor("release-4", other);
    answer(other);
    awaitReleased("release-4");

    assertThat(logged.list.stream().map(ILoggingEvent::getFormattedMessage).filter(line -> line.contains("does not exist")))
        .containsExactlyInAnyOrder(
            "Query agents/short-lived does not exist; its pending questions are not shown on it until it does",
            "Query agents/never-created does not exist; its pending questions are not shown on it until it does");
  }

  @Test
  void apiErrorsAreRetriedUntilTheStatusConverges() throws Exception {
    cluster.createQuery("release-5", "running");
    server.expect().get().withPath(MockCluster.queryPath("release-5")).andReturn(500, "{}").times(2);
    server.expect().patch().withPath(MockCluster.statusPath("release-5")).andReturn(503, "{}").times(3);
    broker = startBroker();

    String id = ask("release-5", "call_1", "").getString("id");

    awaitWaitingFor("release-5", id);
    assertThat(reconciles("failed")).as("two failed reads and three failed patches").isEqualTo(5);
  }

  @Test
  void aQueryAnsweredWhileNoBrokerWatchedIsReleasedAfterARestart() throws Exception {
    cluster.createQuery("release-6", "running");
    cluster.createQuery("release-7", "running");
    String answeredMeanwhile;
    String askedMeanwhile;
    try (TestBroker first = startBroker()) {
      broker = first;
      answeredMeanwhile = ask("release-6", "call_1", "").getString("id");
      awaitWaitingFor("release-6", answeredMeanwhile);
    }
    try (TestBroker withoutKubernetes = TestBroker.start(dir.resolve("data"))) {
      broker = withoutKubernetes;
      answer(answeredMeanwhile);
      askedMeanwhile = ask("release-7", "call_1", "").getString("id");
    }
    assertThat(cluster.status("release-6").getString("phase")).isEqualTo("waiting");
    assertThat(cluster.status("release-7").getString("phase")).isEqualTo("running");

    broker = startBroker();

    awaitReleased("release-6");
    awaitWaitingFor("release-7", askedMeanwhile);
  }

  @Test
  void aNewWorkerConvergesWhatHappenedWhileThereWasNone() throws Exception {
    startBrokerWithRunning("release-8", "release-9");
    String answeredMeanwhile = ask("release-8", "call_1", "").getString("id");
    awaitWaitingFor("release-8", answeredMeanwhile);

    broker.vertx.eventBus().publish(Addresses.WORKER_CHANGED, new WorkerStatus(false));
    answer(answeredMeanwhile);
    String askedMeanwhile = ask("release-9", "call_1", "").getString("id");
    broker.vertx.eventBus().publish(Addresses.WORKER_CHANGED, new WorkerStatus(true));

    awaitReleased("release-8");
    awaitWaitingFor("release-9", askedMeanwhile);
  }

  @Test
  void theBrokerUsesExactlyTheRightsItsRoleGrantsOnQueries() throws Exception {
    startBrokerWithRunning("release-10");
    String id = ask("release-10", "call_1", "").getString("id");
    awaitWaitingFor("release-10", id);
    answer(id);
    awaitReleased("release-10");

    Set<String> used = cluster.rightsTheBrokerUsed();
    Role role = client.rbac().roles().load(Path.of("k8s/base/role.yaml").toFile()).item();
    Set<String> granted = new TreeSet<>();
    for (PolicyRule rule : role.getRules()) {
      assertThat(rule.getApiGroups()).containsExactly("ark.mckinsey.com");
      // The rights on Queries; those on A2ATasks are ApprovalsTest's.
      rule.getResources().stream().filter(resource -> resource.startsWith("queries"))
          .forEach(resource -> rule.getVerbs().forEach(verb -> granted.add(resource + " " + verb)));
    }

    assertThat(used).isEqualTo(granted);
  }

  /** How many reconciliations came to {@code outcome}, as an operator reads it on /metrics. */
  private long reconciles(String outcome) throws Exception {
    Matcher count = Pattern.compile("ark_broker_query_status_reconciles_total\\{outcome=\"" + outcome + "\"[^}]*} (\\S+)")
        .matcher(broker.get("/metrics").body());
    return count.find() ? (long) Double.parseDouble(count.group(1)) : 0;
  }

  private static ListAppender<ILoggingEvent> captureLog() {
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    ((Logger) LoggerFactory.getLogger(KubeVerticle.class)).addAppender(appender);
    return appender;
  }
}
