package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.McpTestClient.Reply;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The Streamable HTTP transport and the protocol's lifecycle, over real HTTP: every refusal and its status. */
class McpTransportTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(
      new JsonObject().put("mcp", new JsonObject().put("bodyLimitBytes", 2048)), started -> broker = started);

  private static McpTestClient client() {
    return new McpTestClient(broker.mcp);
  }

  private static McpTestClient session() throws Exception {
    return client().initialize();
  }

  @Test
  void initializeStartsASessionAndDeclaresTheServersCapabilities() throws Exception {
    Reply reply = client().call("initialize", new JsonObject().put("protocolVersion", "2025-11-25")
        .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "t").put("version", "1")));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.header("Mcp-Session-Id")).matches("[\\x21-\\x7E]{32,}");
    JsonObject result = reply.result();
    assertThat(result.getString("protocolVersion")).isEqualTo("2025-11-25");
    assertThat(result.getJsonObject("serverInfo").getString("name")).isEqualTo("ark-broker");
    JsonObject capabilities = result.getJsonObject("capabilities");
    assertThat(capabilities.getJsonObject("tasks")).isEqualTo(new JsonObject()
        .put("list", new JsonObject()).put("cancel", new JsonObject())
        .put("requests", new JsonObject().put("tools", new JsonObject().put("call", new JsonObject()))));
    assertThat(capabilities.getJsonObject("resources").getBoolean("subscribe")).isTrue();
    assertThat(capabilities.fieldNames()).contains("tools", "prompts", "logging", "completions");
  }

  @Test
  void versionsAreNegotiatedBackTo20250326() throws Exception {
    assertThat(negotiated("2025-03-26")).isEqualTo("2025-03-26");
    assertThat(negotiated("2025-06-18")).isEqualTo("2025-06-18");
    assertThat(negotiated("1999-01-01")).isEqualTo("2025-11-25");
  }

  private static String negotiated(String requested) throws Exception {
    return client().call("initialize", new JsonObject().put("protocolVersion", requested)
        .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "t").put("version", "1")))
        .result().getString("protocolVersion");
  }

  @Test
  void headersAreCheckedWithTheStatusesTheSpecGives() throws Exception {
    McpTestClient client = session();
    String ping = client.message("ping", null).encode();

    assertTransportError(client.send(client.post(ping).setHeader("Accept", "application/json").build()), 406, "Not Acceptable");
    assertTransportError(client.send(client.post(ping).setHeader("Content-Type", "text/plain").build()), 415, "Unsupported Media Type");
    assertTransportError(client.send(client.post(ping).setHeader("MCP-Protocol-Version", "1999-01-01").build()), 400,
        "Unsupported protocol version: 1999-01-01");
    assertTransportError(client.send(client.post(ping).header("Host", "evil.example.com").build()), 403, "Invalid Host");
    assertTransportError(client.send(client.post(ping).header("Origin", "http://evil.example.com").build()), 403, "Invalid Origin");
    assertThat(client.send(client.post(ping).header("Origin", "http://localhost:3000").build()).status()).isEqualTo(200);
    assertTransportError(client.send(client.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\""
        + "y".repeat(3000) + "\"}}").build()), 413, "larger than 2048 bytes");
  }

  @Test
  void sessionsAreRequiredKnownAndEndedByDelete() throws Exception {
    McpTestClient none = client();
    assertTransportError(none.call("ping", null), 400, "Mcp-Session-Id header is required");

    McpTestClient unknown = client();
    unknown.sessionId = "no-such-session";
    Reply notFound = unknown.call("ping", null);
    assertThat(notFound.status()).isEqualTo(404);
    assertThat(notFound.error().getInteger("code")).isEqualTo(-32001);

    McpTestClient client = session();
    Reply deleted = client.send(client.withSession(HttpRequest.newBuilder(broker.mcp).DELETE()).build());
    assertThat(deleted.status()).isEqualTo(200);
    assertThat(client.call("ping", null).status()).isEqualTo(404);

    McpTestClient again = session();
    assertTransportError(again.send(again.post(again.message("initialize", new JsonObject()
        .put("protocolVersion", "2025-11-25").put("capabilities", new JsonObject())
        .put("clientInfo", new JsonObject().put("name", "t").put("version", "1"))).encode()).build()), 400,
        "must not carry Mcp-Session-Id");
  }

  @Test
  void malformedEnvelopesGetPreciseJsonRpcErrors() throws Exception {
    McpTestClient client = session();

    assertRpcError(client.send(client.post("{\"jsonrpc\":").build()), 400, -32700, "Parse error");
    assertRpcError(client.send(client.post("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]").build()), 400, -32600, "batches");
    assertRpcError(client.send(client.post("{\"id\":1,\"method\":\"ping\"}").build()), 400, -32600, "jsonrpc must be");
    assertRpcError(client.send(client.post("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}").build()), 400, -32600, "id must be");
    assertRpcError(client.send(client.post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}").build()), 400,
        -32600, "params must be an object");
    assertRpcError(client.send(client.post("{\"jsonrpc\":\"2.0\",\"id\":1}").build()), 400, -32600, "needs a method");
    assertRpcError(client.call("no/such/method", null), 200, -32601, "Method not found: no/such/method");
    assertRpcError(client.call("logging/setLevel", new JsonObject().put("level", "loud")), 200, -32602, "level must be one of");
    assertRpcError(client.call("tools/call", new JsonObject().put("name", "no_such_tool")), 200, -32602, "Unknown tool: no_such_tool");
    assertRpcError(client.call("tools/call", new JsonObject().put("name", "get_question").put("task", new JsonObject())),
        200, -32601, "does not run as a task");
    assertRpcError(client.call("tools/list", new JsonObject().put("cursor", "bogus")), 200, -32602, "invalid cursor");
    assertRpcError(client.call("resources/read", new JsonObject().put("uri", "ark://questions/q-none")), 200, -32002,
        "Resource not found");
    assertRpcError(client.call("resources/read", new JsonObject().put("uri", "file:///etc/passwd")), 200, -32002,
        "Resource not found");
    assertRpcError(client.call("prompts/get", new JsonObject().put("name", "nope")), 200, -32602, "Unknown prompt");
    assertRpcError(client.call("tasks/get", new JsonObject().put("taskId", "q-none")), 200, -32602, "Task not found");
    assertRpcError(client.call("tasks/get", new JsonObject()), 200, -32602, "taskId is required");
  }

  @Test
  void notificationsAndClientResponsesGet202() throws Exception {
    McpTestClient client = session();

    Reply notification = client.notify("notifications/roots/list_changed", null);
    Reply response = client.send(new JsonObject().put("jsonrpc", "2.0").put("id", "s999").put("result", new JsonObject()));

    assertThat(notification.status()).isEqualTo(202);
    assertThat(notification.json()).isNull();
    assertThat(response.status()).isEqualTo(202);
  }

  @Test
  void pingLoggingAndCompletionAnswerPromptly() throws Exception {
    McpTestClient client = session();

    assertThat(client.call("ping", null).result()).isEqualTo(new JsonObject());
    assertThat(client.call("logging/setLevel", new JsonObject().put("level", "warning")).result()).isEqualTo(new JsonObject());
    assertThat(client.call("completion/complete", new JsonObject()
        .put("ref", new JsonObject().put("type", "ref/prompt").put("name", "x"))
        .put("argument", new JsonObject().put("name", "a").put("value", "b"))).result()
        .getJsonObject("completion").getJsonArray("values")).isEmpty();
  }

  @Test
  void toolsListDescribesEveryBrokerTool() throws Exception {
    JsonArray tools = session().call("tools/list", null).result().getJsonArray("tools");

    assertThat(tools.stream().map(t -> ((JsonObject) t).getString("name")))
        .containsExactly("ask_question", "list_pending_questions", "get_question", "cancel_question");
    for (Object entry : tools) {
      JsonObject tool = (JsonObject) entry;
      assertThat(tool.getString("description")).hasSizeGreaterThan(40);
      assertThat(tool.getJsonObject("inputSchema").getString("type")).isEqualTo("object");
    }
    JsonObject ask = tools.getJsonObject(0);
    assertThat(ask.getJsonObject("execution").getString("taskSupport")).isEqualTo("optional");
    assertThat(ask.getJsonObject("inputSchema").getJsonArray("required")).containsExactly("recipient", "content");
    assertThat(ask.getJsonObject("outputSchema").getJsonObject("properties").fieldNames())
        .contains("questionId", "status", "response", "answeredBy", "answeredAt");
  }

  @Test
  void theStandaloneStreamIsOnePerSessionAndOtherMethodsAreRefused() throws Exception {
    McpTestClient client = session();
    try (SseStream first = client.get(null)) {
      assertThat(first.status).isEqualTo(200);
      assertThat(first.contentType).startsWith("text/event-stream");
      assertThat(first.next().id()).isEqualTo("g.0");

      try (SseStream second = client.get(null)) {
        assertThat(second.status).isEqualTo(409);
      }
    }
    Reply put = client.send(client.withSession(HttpRequest.newBuilder(broker.mcp).PUT(HttpRequest.BodyPublishers.noBody())).build());
    assertThat(put.status()).isEqualTo(405);
    assertThat(put.header("Allow")).isEqualTo("GET, POST, DELETE");
    Reply jsonGet = client.send(client.withSession(HttpRequest.newBuilder(broker.mcp).header("Accept", "application/json")).build());
    assertThat(jsonGet.status()).isEqualTo(406);
    try (SseStream resumeNothing = client.get("not-a-known-event-id")) {
      assertThat(resumeNothing.status).isEqualTo(400);
    }
  }

  @Test
  void aSessionSurvivesItsClientsConnectionsAndDeleteClosesItsStream() throws Exception {
    McpTestClient client = session();
    try (SseStream stream = client.get(null)) {
      stream.next();
      client.send(client.withSession(HttpRequest.newBuilder(broker.mcp).DELETE()).build());

      assertThat(stream.next(5, TimeUnit.SECONDS).event()).isEqualTo("end-of-stream");
    }
  }

  static void assertTransportError(Reply reply, int status, String message) {
    assertRpcError(reply, status, null, message);
  }

  static void assertRpcError(Reply reply, int status, Integer code, String message) {
    assertThat(reply.status()).as(String.valueOf(reply.json())).isEqualTo(status);
    JsonObject error = reply.error();
    assertThat(error).as("a JSON-RPC error body").isNotNull();
    if (code != null) {
      assertThat(error.getInteger("code")).isEqualTo(code);
    }
    assertThat(error.getString("message")).contains(message);
    assertThat(List.of("id")).allMatch(field -> reply.response().containsKey(field));
  }
}
