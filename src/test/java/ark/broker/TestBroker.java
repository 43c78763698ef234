package ark.broker;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A whole broker (Main's own wiring) in this JVM on a free port and a temporary data directory. */
public final class TestBroker implements AutoCloseable {
  public final Vertx vertx;
  public final URI base;
  public final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private TestBroker(Vertx vertx, int port) {
    this.vertx = vertx;
    this.base = URI.create("http://127.0.0.1:" + port);
  }

  /** Starts with conf/broker.json, then {@code overrides} merged in, on its own port and data directory. */
  public static TestBroker start(Path dataDir, JsonObject overrides) throws Exception {
    Vertx vertx = Vertx.vertx();
    JsonObject config = ConfigLoader.load(vertx, Map.of()).await(10, TimeUnit.SECONDS)
        .mergeIn(new JsonObject()
            .put("http", new JsonObject().put("port", 0).put("instances", 1))
            .put("store", new JsonObject().put("dataDir", dataDir.toString()))
            // Hermetic: a developer's kubeconfig must not turn on Query patching against their cluster.
            .put("kube", new JsonObject().put("enabled", "false")), true)
        .mergeIn(overrides, true);
    Main.RunningBroker running = Main.start(vertx, config).await(30, TimeUnit.SECONDS);
    return new TestBroker(vertx, running.httpPort());
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
    HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(15)).build(),
        HttpResponse.BodyHandlers.ofString());
    return new Response(response.statusCode(), response.headers().map(), response.body());
  }

  /** Creates a question from a JSON body (quotes may be written as ') and returns it. */
  public JsonObject ask(String json) throws Exception {
    Response created = post("/questions", json.replace('\'', '"'));
    if (created.status() != 201) {
      throw new AssertionError("create failed: " + created);
    }
    return created.json();
  }

  public SseStream watch(String query, String lastEventId) throws Exception {
    return SseStream.open(http, base.resolve("/questions?watch=true" + (query.isEmpty() ? "" : "&" + query)), lastEventId);
  }

  @Override
  public void close() throws Exception {
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
