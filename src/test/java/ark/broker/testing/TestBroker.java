package ark.broker.testing;

import ark.broker.ConfigLoader;
import ark.broker.Main;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** A whole broker (Main's own wiring) in this JVM on a free port and a temporary data directory. */
public final class TestBroker implements AutoCloseable {
  public final Vertx vertx;
  public final URI base;
  /** The MCP endpoint, http://127.0.0.1:port/mcp. */
  public final URI mcp;
  public final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

  /** Sent as {@code Authorization: Bearer <token>} with every REST request, or null for none. */
  private final String token;
  /** False for a view made by {@link #as}: closing it leaves the broker running. */
  private final boolean owner;

  private TestBroker(Vertx vertx, Main.RunningBroker running) {
    this.vertx = vertx;
    this.base = URI.create("http://127.0.0.1:" + running.httpPort());
    this.mcp = URI.create("http://127.0.0.1:" + running.mcpPort() + "/mcp");
    this.token = null;
    this.owner = true;
  }

  private TestBroker(TestBroker broker, String token) {
    this.vertx = broker.vertx;
    this.base = broker.base;
    this.mcp = broker.mcp;
    this.token = token;
    this.owner = false;
  }

  /** The same broker, reached with {@code token} (null for none): its REST calls carry it. Closing it does nothing. */
  public TestBroker as(String bearer) {
    return new TestBroker(this, bearer);
  }

  /** Starts with conf/broker.json, then {@code overrides} merged in, on its own port and data directory. */
  public static TestBroker start(Path dataDir, JsonObject overrides) throws Exception {
    return start(dataDir, overrides, features -> { });
  }

  /** The same, offering more MCP features (the conformance fixtures). */
  public static TestBroker start(Path dataDir, JsonObject overrides,
                                 java.util.function.Consumer<ark.broker.mcp.protocol.McpFeatures> extraMcpFeatures)
      throws Exception {
    Vertx vertx = Vertx.vertx();
    JsonObject config = ConfigLoader.load(vertx, Map.of()).await(10, TimeUnit.SECONDS)
        .mergeIn(new JsonObject()
            .put("http", new JsonObject().put("port", 0).put("instances", 1))
            .put("mcp", new JsonObject().put("port", 0))
            .put("store", new JsonObject().put("dataDir", dataDir.toString()))
            // Hermetic: a developer's kubeconfig must not turn on Query patching against their cluster.
            .put("kube", new JsonObject().put("enabled", "false")), true)
        .mergeIn(overrides, true);
    Main.RunningBroker running = Main.start(vertx, config, extraMcpFeatures).await(30, TimeUnit.SECONDS);
    return new TestBroker(vertx, running);
  }

  public static TestBroker start(Path dataDir) throws Exception {
    return start(dataDir, new JsonObject());
  }

  public Response get(String path) throws Exception {
    return send(HttpRequest.newBuilder(base.resolve(path)).GET());
  }

  public Response post(String path, String json) throws Exception {
    return send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  public Response patch(String path, String json) throws Exception {
    return send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString(json)));
  }

  public Response delete(String path) throws Exception {
    return send(HttpRequest.newBuilder(base.resolve(path)).DELETE());
  }

  public Response send(HttpRequest.Builder request) throws Exception {
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(15)).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Response(response.statusCode(), response.headers().map(), response.body());
  }

  /** Sends {@code request} with this caller's token, answered as soon as its headers are: for watches. */
  public HttpResponse<java.io.InputStream> open(HttpRequest.Builder request) throws Exception {
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  /** Creates a question from a JSON body (quotes may be written as ') and returns it. */
  public JsonObject ask(String json) throws Exception {
    Response created = post("/questions", json.replace('\'', '"'));
    if (created.status() != 201) {
      throw new AssertionError("create failed: " + created);
    }
    return created.json();
  }

  /** A recipient of the caller's own, so tests sharing a broker do not see each other's questions. */
  public static String someone() {
    return "ark://users/u-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Every question the list shows for {@code query} ("" for all), page after page. */
  public java.util.List<JsonObject> listAll(String query) throws Exception {
    java.util.List<JsonObject> all = new java.util.ArrayList<>();
    String next = null;
    do {
      JsonObject page = get("/questions?limit=1000" + (query.isEmpty() ? "" : "&" + query)
          + (next == null ? "" : "&continue=" + next)).json();
      page.getJsonArray("items").forEach(item -> all.add((JsonObject) item));
      next = page.getString("continue");
    } while (next != null);
    return all;
  }

  public SseStream watch(String query, String lastEventId) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/questions?watch=true"
        + (query.isEmpty() ? "" : "&" + query))).header("Accept", "text/event-stream");
    if (lastEventId != null) {
      request.header("Last-Event-ID", lastEventId);
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return SseStream.open(http, request.build());
  }

  @Override
  public void close() throws Exception {
    if (!owner) {
      return;
    }
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  public record Response(int status, Map<String, java.util.List<String>> headers, String body) {
    public JsonObject json() {
      return new JsonObject(body);
    }

    public String header(String name) {
      return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
          .map(e -> e.getValue().get(0)).findFirst().orElse(null);
    }

    public JsonObject error() {
      return json().getJsonObject("error");
    }
  }
}
