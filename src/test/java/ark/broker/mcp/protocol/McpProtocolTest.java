package ark.broker.mcp.protocol;

import ark.broker.testing.Eventually;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The protocol layer on its own, over real HTTP: a server with a stub feature set (an echo tool, a tool that waits
 * until cancelled, a tool that fails, one resource, one prompt, one task) and sessions kept in memory, driven the
 * way an MCP client drives it. Nothing of the broker is involved.
 */
class McpProtocolTest {
  private static final String PATH = "/mcp";

  static Vertx vertx;
  static HttpServer http;
  static McpServer server;
  static final HttpClient client = HttpClient.newHttpClient();
  static final CountDownLatch cancelled = new CountDownLatch(1);

  /** Sessions in a map, as a repository with no store behind it keeps them. */
  static final class InMemorySessions implements SessionRepository {
    final Map<String, McpSession> sessions = new ConcurrentHashMap<>();

    @Override
    public Future<Void> save(McpSession session) {
      sessions.put(session.id(), session);
      return Future.succeededFuture();
    }

    @Override
    public Future<Void> start(McpSession session, ClientAuthentication.ClientIdentity identity) {
      return save(session);
    }

    @Override
    public Future<McpSession> find(String id) {
      return Future.succeededFuture(sessions.get(id));
    }

    @Override
    public Future<Void> delete(String id) {
      sessions.remove(id);
      return Future.succeededFuture();
    }
  }

  /** A refusal of the stub's own, which its failure translation turns into a JSON-RPC error. */
  static final class Refusal extends RuntimeException {
    Refusal(String message) {
      super(message);
    }
  }

  private static Tool tool(String name, Tool.Handler handler) {
    ObjectNode definition = McpJson.object().put("name", name).put("description", name);
    definition.putObject("inputSchema").put("type", "object");
    return new Tool(definition, handler);
  }

  private static McpFeatures stubFeatures() {
    McpFeatures features = new McpFeatures("stub", "1.0", "a stub")
        .failures(failure -> failure instanceof Refusal ? JsonRpcError.invalidParams(failure.getMessage()) : null);
    features.tool(tool("echo", (ctx, arguments) -> Future.succeededFuture(text(arguments.path("text").asText()))));
    features.tool(tool("refuse", (ctx, arguments) -> Future.failedFuture(new Refusal("not this one"))));
    features.tool(tool("crash", (ctx, arguments) -> Future.failedFuture(new IllegalStateException("a bug"))));
    features.tool(tool("wait", (ctx, arguments) -> {
      Promise<ObjectNode> never = Promise.promise();
      ctx.onCancel(() -> {
        cancelled.countDown();
        never.tryFail("cancelled");
      });
      return never.future();
    }));
    features.resources(new ResourceProvider() {
      @Override
      public Future<List<ObjectNode>> list(RequestContext ctx) {
        return Future.succeededFuture(List.of(McpJson.object().put("uri", "stub://one").put("name", "one")));
      }

      @Override
      public List<ObjectNode> templates() {
        return List.of();
      }

      @Override
      public boolean owns(String uri) {
        return uri.startsWith("stub://");
      }

      @Override
      public Future<ArrayNode> read(RequestContext ctx, String uri) {
        if (!uri.equals("stub://one")) {
          return Future.failedFuture(McpServer.resourceNotFound(uri));
        }
        ArrayNode contents = McpJson.array();
        contents.addObject().put("uri", uri).put("text", "the one");
        return Future.succeededFuture(contents);
      }
    });
    ObjectNode prompt = McpJson.object().put("name", "greet");
    features.prompt(new Prompt(prompt, (ctx, arguments) -> Future.succeededFuture(
        McpJson.object().put("description", "hello " + arguments.path("who").asText()))));
    return features;
  }

  private static ObjectNode text(String text) {
    ObjectNode result = McpJson.object();
    result.putArray("content").addObject().put("type", "text").put("text", text);
    return result;
  }

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    ServerSettings settings = new ServerSettings(PATH, 1 << 20, List.of("localhost", "127.0.0.1"), 1000, 30_000,
        5000, 0, 16_384, 2, 200, StreamTokenKeys.of(List.of(StreamTokenKeys.newKey())));
    server = new McpServer(vertx, settings, stubFeatures(), new InMemorySessions(), Clock.systemUTC(),
        (method, failed, nanos) -> { });
    Router router = Router.router(vertx);
    new StreamableHttpEndpoint(server, ClientAuthentication.NONE).mount(router);
    http = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private String session;

  @BeforeEach
  void initialize() throws Exception {
    HttpResponse<String> response = post(null, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
        + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}");
    assertThat(response.statusCode()).isEqualTo(200);
    session = response.headers().firstValue(StreamableHttpEndpoint.SESSION_HEADER).orElseThrow();
  }

  private static HttpResponse<String> post(String sessionId, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.actualPort() + PATH))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (sessionId != null) {
      request.header(StreamableHttpEndpoint.SESSION_HEADER, sessionId).header(StreamableHttpEndpoint.VERSION_HEADER, "2025-11-25");
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The JSON-RPC response to a request of this test's session, from a JSON body or the last event of a stream. */
  private JsonNode call(String method, String params) throws Exception {
    HttpResponse<String> response = post(session,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":" + params + "}");
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    String body = response.body();
    if (response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      List<String> data = body.lines().filter(line -> line.startsWith("data: ")).toList();
      body = data.get(data.size() - 1).substring(6);
    }
    return McpJson.MAPPER.readTree(body);
  }

  @Test
  void initializeNegotiatesTheVersionAndOffersWhatTheFeaturesHave() throws Exception {
    HttpResponse<String> response = post(null, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
        + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"older\"}}}");
    JsonNode result = McpJson.MAPPER.readTree(response.body()).get("result");

    assertThat(result.get("protocolVersion").asText()).isEqualTo("2025-06-18");
    assertThat(result.path("serverInfo").path("name").asText()).isEqualTo("stub");
    assertThat(result.path("capabilities").has("tools")).isTrue();
    assertThat(result.path("capabilities").has("tasks")).as("the stub has no task store").isFalse();
    assertThat(result.get("instructions").asText()).isEqualTo("a stub");
  }

  @Test
  void toolsAreListedAndCalled() throws Exception {
    JsonNode listed = call("tools/list", "{}").get("result").get("tools");
    JsonNode echoed = call("tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}").get("result");

    assertThat(listed).extracting(tool -> tool.get("name").asText()).containsExactly("echo", "refuse", "crash", "wait");
    assertThat(echoed.path("content").path(0).path("text").asText()).isEqualTo("hi");
  }

  @Test
  void everyMethodOfTheTableIsAnsweredAndNoOther() throws Exception {
    assertThat(call("ping", "{}").get("result").size()).isZero();
    assertThat(call("no/such/method", "{}").path("error").path("code").asInt()).isEqualTo(JsonRpcError.METHOD_NOT_FOUND);
    assertThat(post(session, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}").statusCode())
        .as("a session is initialized once").isEqualTo(400);
    assertThat(call("tasks/get", "{\"taskId\":\"t\"}").path("error").path("code").asInt())
        .as("no task store, no tasks methods").isEqualTo(JsonRpcError.METHOD_NOT_FOUND);
    assertThat(server.answers("tools/call")).isTrue();
    assertThat(server.answers("resume")).isTrue();
    assertThat(server.answers("no/such/method")).isFalse();
  }

  @Test
  void aFeaturesRefusalIsTranslatedAndABugIsAnInternalErrorWithoutItsMessage() throws Exception {
    JsonNode refused = call("tools/call", "{\"name\":\"refuse\"}").get("error");
    JsonNode crashed = call("tools/call", "{\"name\":\"crash\"}").get("error");
    JsonNode unknown = call("tools/call", "{\"name\":\"nope\"}").get("error");

    assertThat(refused.get("code").asInt()).isEqualTo(JsonRpcError.INVALID_PARAMS);
    assertThat(refused.get("message").asText()).contains("not this one");
    assertThat(crashed.get("code").asInt()).isEqualTo(JsonRpcError.INTERNAL_ERROR);
    assertThat(crashed.get("message").asText()).doesNotContain("a bug");
    assertThat(unknown.get("message").asText()).contains("Unknown tool: nope");
  }

  @Test
  void resourcesArePromptsAndSubscriptionsAreBounded() throws Exception {
    assertThat(call("resources/read", "{\"uri\":\"stub://one\"}").path("result").path("contents").path(0).path("text").asText())
        .isEqualTo("the one");
    assertThat(call("resources/read", "{\"uri\":\"stub://two\"}").path("error").path("code").asInt())
        .isEqualTo(JsonRpcError.RESOURCE_NOT_FOUND);
    assertThat(call("prompts/get", "{\"name\":\"greet\",\"arguments\":{\"who\":\"you\"}}").path("result")
        .path("description").asText()).isEqualTo("hello you");
    assertThat(call("resources/subscribe", "{\"uri\":\"stub://one\"}").has("result")).isTrue();
    assertThat(call("resources/subscribe", "{\"uri\":\"stub://two\"}").path("error").path("code").asInt())
        .as("only resources that exist").isEqualTo(JsonRpcError.RESOURCE_NOT_FOUND);
    assertThat(call("resources/subscribe", "{\"uri\":\"stub://" + "x".repeat(300) + "\"}").path("error")
        .path("code").asInt()).as("URIs of at most the configured length").isEqualTo(JsonRpcError.INVALID_PARAMS);
  }

  @Test
  void aClientCancelsItsRequestAndEndsItsSession() throws Exception {
    var waiting = client.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.actualPort() + PATH))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .header(StreamableHttpEndpoint.SESSION_HEADER, session)
        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
            + "\"params\":{\"name\":\"wait\"}}")).build(), HttpResponse.BodyHandlers.ofString());
    Eventually.until("the call runs", server::requestsInFlight, running -> running == 1);

    HttpResponse<String> notified = post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
        + "\"params\":{\"requestId\":9}}");

    assertThat(notified.statusCode()).isEqualTo(202);
    assertThat(cancelled.await(10, TimeUnit.SECONDS)).as("the tool heard of it").isTrue();
    waiting.get(10, TimeUnit.SECONDS);
    assertThat(server.requestsInFlight()).isZero();

    HttpResponse<String> ended = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + http.actualPort() + PATH))
        .header(StreamableHttpEndpoint.SESSION_HEADER, session).DELETE().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(ended.statusCode()).isEqualTo(200);
    assertThat(post(session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}").statusCode())
        .as("an ended session is gone").isEqualTo(404);
  }
}
