package ark.broker.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * fabric8's mock API server in CRUD mode with Ark's CRDs as Ark ships them (Query, A2ATask, MCPServer), as the
 * broker and a test both see it; every write to those resources is checked against its CRD's schema.
 */
final class MockCluster implements AutoCloseable {
  static final String QUERY_CRD = "/kube/ark/ark.mckinsey.com_queries.yaml";
  static final String A2A_TASK_CRD = "/kube/ark/ark.mckinsey.com_a2atasks.yaml";
  static final String MCP_SERVER_CRD = "/kube/ark/ark.mckinsey.com_mcpservers.yaml";
  /** The Query CRD change that the opt-in {@code kube.queryStatusMode: phase} needs. */
  static final Path WAITING_PHASE_PATCH = Path.of("k8s/overlays/waiting-phase/query-crd.patch.yaml");

  static final String NAMESPACE = "agents";
  /** The broker's credentials in its kubeconfig, which tell its requests apart from the test's own. */
  static final String BROKER_TOKEN = "not-checked-by-the-mock";
  static final String BROKER_AUTHORIZATION = "Bearer " + BROKER_TOKEN;

  final KubernetesMockServer server;
  final KubernetesClient client;
  private final SchemaCheckedDispatcher api;

  /** With Ark's CRDs as shipped. */
  static MockCluster stock() {
    return new MockCluster(CrdSchema.load(QUERY_CRD));
  }

  /** With the Query CRD that carries the opt-in {@code waiting} phase. */
  static MockCluster withWaitingPhase() {
    return new MockCluster(CrdSchema.load(QUERY_CRD, WAITING_PHASE_PATCH));
  }

  private MockCluster(CrdSchema queries) {
    Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
    api = new SchemaCheckedDispatcher(expectations);
    server = new KubernetesMockServer(new Context(), new MockWebServer(), expectations, api, false);
    server.init();
    client = server.createClient();
    for (CrdSchema crd : List.of(queries, CrdSchema.load(A2A_TASK_CRD), CrdSchema.load(MCP_SERVER_CRD))) {
      client.apiextensions().v1().customResourceDefinitions()
          .resource(Serialization.unmarshal(crd.crd.toString(), CustomResourceDefinition.class)).create();
      api.check(crd);
    }
  }

  /** Fails with what was wrong if any write to an Ark resource broke its CRD's schema (the server refused it). */
  void assertEveryWriteMatchedItsSchema() {
    assertThat(api.refused()).as("writes the API server would refuse").isEmpty();
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }

  /** A kubeconfig for the broker: this server, with {@link #NAMESPACE} as the context's namespace. */
  Path writeKubeconfig(Path dir) throws IOException {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, """
        apiVersion: v1
        kind: Config
        clusters:
          - name: mock
            cluster: {server: "%s"}
        users:
          - name: broker
            user: {token: %s}
        contexts:
          - name: mock
            context: {cluster: mock, user: broker, namespace: %s}
        current-context: mock
        """.formatted(client.getMasterUrl(), BROKER_TOKEN, NAMESPACE));
    return file;
  }

  /** The broker's {@code kube} settings pointing at this server, retrying quickly. */
  JsonObject brokerConfig(Path dir) throws IOException {
    return new JsonObject().put("kube", new JsonObject()
        .put("enabled", "true")
        .put("kubeconfig", writeKubeconfig(dir).toString())
        .put("retryInitialMillis", 20)
        .put("retryMaxMillis", 200));
  }

  /** Creates Query {@code name} in {@code namespace} and sets its status phase. */
  void createQuery(String namespace, String name, String phase) {
    GenericKubernetesResource query = new GenericKubernetesResourceBuilder()
        .withApiVersion("ark.mckinsey.com/v1alpha1").withKind("Query")
        .withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
        .addToAdditionalProperties("spec", Map.of("input", "Deploy the release?"))
        .build();
    client.genericKubernetesResources(QueryApi.QUERIES).inNamespace(namespace).resource(query).create();
    setStatus(namespace, name, new JsonObject().put("phase", phase));
  }

  void createQuery(String name, String phase) {
    createQuery(NAMESPACE, name, phase);
  }

  void setStatus(String namespace, String name, JsonObject status) {
    client.genericKubernetesResources(QueryApi.QUERIES).inNamespace(namespace).withName(name).subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), new JsonObject().put("status", status).encode());
  }

  void deleteQuery(String name) {
    client.genericKubernetesResources(QueryApi.QUERIES).inNamespace(NAMESPACE).withName(name).delete();
  }

  /** The Query's status as JSON (empty when it has none). */
  JsonObject status(String namespace, String name) {
    Object status = read(namespace, name).getAdditionalProperties().get("status");
    return status == null ? new JsonObject() : JsonObject.mapFrom(status);
  }

  /** The whole Query as the API server returns it. */
  String json(String name) {
    return Serialization.asJson(read(NAMESPACE, name));
  }

  // Through a list, not a get: tests inject API errors on the Query's own path for the broker alone.
  private GenericKubernetesResource read(String namespace, String name) {
    return client.genericKubernetesResources(QueryApi.QUERIES).inNamespace(namespace).list().getItems().stream()
        .filter(q -> q.getMetadata().getName().equals(name)).findFirst().orElseThrow();
  }

  JsonObject status(String name) {
    return status(NAMESPACE, name);
  }

  /** The RBAC rights ({@link #rbacRight}) of every request the broker made so far; takes them off the server's record. */
  Set<String> rightsTheBrokerUsed() throws InterruptedException {
    Set<String> used = new TreeSet<>();
    for (RecordedRequest request = server.takeRequest(1, TimeUnit.SECONDS); request != null;
         request = server.takeRequest(100, TimeUnit.MILLISECONDS)) {
      if (BROKER_AUTHORIZATION.equals(request.getHeader("Authorization"))) {
        used.add(rbacRight(request.getMethod(), request.getPath()));
      }
    }
    return used;
  }

  /**
   * The RBAC right an API request needs, as {@code "resource verb"} ({@code queries/status patch}): the
   * resource and subresource from the path, the verb from the method (a GET is list without a name).
   */
  static String rbacRight(String method, String path) {
    String[] segments = path.replaceFirst("\\?.*", "").replaceFirst("^/apis/[^/]+/[^/]+/", "")
        .replaceFirst("^namespaces/[^/]+/", "").split("/");
    String resource = segments.length == 3 ? segments[0] + "/" + segments[2] : segments[0];
    String verb = switch (method) {
      case "GET" -> path.contains("watch=true") ? "watch" : segments.length == 1 ? "list" : "get";
      case "POST" -> "create";
      case "PUT" -> "update";
      default -> method.toLowerCase(java.util.Locale.ROOT);
    };
    return resource + " " + verb;
  }

  static String statusPath(String name) {
    return "/apis/ark.mckinsey.com/v1alpha1/namespaces/" + NAMESPACE + "/queries/" + name + "/status";
  }

  static String queryPath(String name) {
    return "/apis/ark.mckinsey.com/v1alpha1/namespaces/" + NAMESPACE + "/queries/" + name;
  }
}
