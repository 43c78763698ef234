package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.McpTestClient.Reply;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sessions are stored, so they are bounded: in size ({@code mcp.maxSessionBytes}) and in number
 * ({@code mcp.maxSessions}). A refused {@code initialize} stores nothing: it takes no place under the limit.
 */
class McpSessionBoundsTest {
  private static final int MAX_SESSIONS = 3;
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject().put("mcp", new JsonObject()
      .put("maxSessions", MAX_SESSIONS).put("maxSessionBytes", 1024)), started -> broker = started);

  private final List<McpTestClient> opened = new ArrayList<>();

  /** Every test starts with no session, so each can count to the limit itself. */
  @AfterEach
  void endSessions() throws Exception {
    for (McpTestClient client : opened) {
      client.send(client.withSession(HttpRequest.newBuilder(broker.mcp).DELETE()).build());
    }
  }

  private McpTestClient session() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    opened.add(client);
    return client;
  }

  private static Reply initialize(JsonObject clientInfo, JsonObject capabilities) throws Exception {
    return new McpTestClient(broker.mcp).call("initialize", new JsonObject().put("protocolVersion", "2025-11-25")
        .put("clientInfo", clientInfo).put("capabilities", capabilities));
  }

  private static JsonObject client(String name) {
    return new JsonObject().put("name", name).put("version", "1.0");
  }

  @Test
  void anInitializeWithOversizedClientInfoOrCapabilitiesIsRefusedAndStoresNothing() throws Exception {
    for (int i = 1; i < MAX_SESSIONS; i++) {
      session();
    }
    Reply bigCapabilities = initialize(client("big"),
        new JsonObject().put("experimental", new JsonObject().put("x", "y".repeat(900 * 1024))));
    Reply bigClientInfo = initialize(client("big").put("description", "d".repeat(2000)), new JsonObject());

    for (Reply refused : List.of(bigCapabilities, bigClientInfo)) {
      assertThat(refused.status()).isEqualTo(200);
      assertThat(refused.header("Mcp-Session-Id")).as("no session issued").isNull();
      assertThat(refused.error().getInteger("code")).isEqualTo(-32602);
      assertThat(refused.error().getString("message"))
          .contains("clientInfo and capabilities are too large").contains("at most 1024");
    }
    // The refused ones took no place: the last free one is still there, and then none is.
    assertThat(session().sessionId).isNotNull();
    assertThat(initialize(client("one-too-many"), new JsonObject()).status()).isEqualTo(503);
  }

  @Test
  void aClientDeclaringEveryCapabilityFitsWellUnderTheLimit() throws Exception {
    // Every capability a 2025-11-25 client may declare, and a full clientInfo.
    JsonObject capabilities = new JsonObject()
        .put("roots", new JsonObject().put("listChanged", true))
        .put("sampling", new JsonObject().put("context", new JsonObject()).put("tools", new JsonObject()))
        .put("elicitation", new JsonObject().put("form", new JsonObject()).put("url", new JsonObject()))
        .put("tasks", new JsonObject().put("list", new JsonObject()).put("cancel", new JsonObject())
            .put("requests", new JsonObject().put("sampling", new JsonObject().put("createMessage", new JsonObject()))
                .put("elicitation", new JsonObject().put("create", new JsonObject()))));
    Reply reply = initialize(client("Visual Studio Code").put("title", "Visual Studio Code - Insiders")
        .put("websiteUrl", "https://code.visualstudio.com"), capabilities);

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.header("Mcp-Session-Id")).isNotNull();
    McpTestClient client = new McpTestClient(broker.mcp);
    client.sessionId = reply.header("Mcp-Session-Id");
    opened.add(client);
    String recipient = TestBroker.someone();
    client.call("tools/call", new JsonObject().put("name", "ask_question").put("task", new JsonObject())
        .put("arguments", new JsonObject().put("recipient", recipient).put("content", "Who asks?")));
    assertThat(broker.get("/questions?recipient=" + recipient).json().getJsonArray("items").getJsonObject(0)
        .getString("sender")).as("the client's name, kept with the session").isEqualTo("ark://agents/Visual-Studio-Code");
  }

  @Test
  void beyondTheLimitInitializeGets503UntilASessionEnds() throws Exception {
    List<McpTestClient> sessions = new ArrayList<>();
    for (int i = 0; i < MAX_SESSIONS; i++) {
      sessions.add(session());
    }

    Reply refused = initialize(client("one-too-many"), new JsonObject());

    assertThat(refused.status()).isEqualTo(503);
    assertThat(refused.header("Mcp-Session-Id")).isNull();
    assertThat(refused.json().getLong("id")).as("the error answers the initialize").isNotNull();
    assertThat(refused.error().getInteger("code")).isEqualTo(-32000);
    assertThat(refused.error().getString("message")).contains("already holds " + MAX_SESSIONS + " MCP sessions");
    assertThat(sessions.get(0).call("ping", null).status()).as("existing sessions keep working").isEqualTo(200);

    McpTestClient ending = sessions.get(0);
    assertThat(ending.send(ending.withSession(HttpRequest.newBuilder(broker.mcp).DELETE()).build()).status()).isEqualTo(200);
    assertThat(session().sessionId).as("a place freed by a session that ended").isNotNull();
    assertThat(initialize(client("one-too-many"), new JsonObject()).status()).isEqualTo(503);
  }
}
