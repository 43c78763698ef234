package ark.broker.mcp;

import ark.broker.testing.Identities;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.McpTestClient.Reply;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Budgets over MCP: sessions per principal at initialize, and pending questions at ask_question. */
class McpBudgetsTest {
  @TempDir
  static Path dir;
  static TestBroker broker;

  @BeforeAll
  static void start() throws Exception {
    broker = TestBroker.start(dir.resolve("data"), Identities.config(dir).put("budgets", new JsonObject()
        .put("overrides", new JsonObject()
            .put(AGENT_NAME, new JsonObject().put("maxMcpSessions", 2))
            .put(OTHER_AGENT_NAME, new JsonObject().put("maxPendingQuestions", 1)))));
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  private static Reply initialize(String token) throws Exception {
    return new McpTestClient(broker.mcp).withToken(token).call("initialize", new JsonObject()
        .put("protocolVersion", "2025-11-25").put("capabilities", new JsonObject())
        .put("clientInfo", new JsonObject().put("name", "budget-test").put("version", "1.0")));
  }

  private static JsonObject ask(String recipient, boolean asTask) {
    JsonObject call = new JsonObject().put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", recipient).put("content", "Deploy now?"));
    return asTask ? call.put("task", new JsonObject()) : call;
  }

  @Test
  void aPrincipalBeyondItsSessionBudgetIsRefusedAtInitializeWhileOthersStart() throws Exception {
    List<McpTestClient> sessions = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      sessions.add(new McpTestClient(broker.mcp).withToken(AGENT).initialize());
    }

    Reply refused = initialize(AGENT);
    Reply other = initialize(OTHER_AGENT);

    assertThat(refused.status()).isEqualTo(429);
    assertThat(refused.header("Mcp-Session-Id")).as("no session issued").isNull();
    assertThat(refused.json().getLong("id")).as("the error answers the initialize").isNotNull();
    assertThat(refused.error().getInteger("code")).isEqualTo(-32000);
    assertThat(refused.error().getString("message"))
        .isEqualTo("Too Many Requests: " + AGENT_NAME + " already has 2 MCP sessions, the most its budget allows;"
            + " end one (DELETE) or wait until an unused one ends");
    assertThat(other.status()).as("another principal still starts one").isEqualTo(200);
    assertThat(other.header("Mcp-Session-Id")).isNotNull();
    assertThat(sessions.get(0).call("ping", null).status()).as("existing sessions keep working").isEqualTo(200);

    McpTestClient ending = sessions.get(0);
    assertThat(ending.send(ending.withSession(HttpRequest.newBuilder(broker.mcp).DELETE()).build()).status())
        .isEqualTo(200);
    assertThat(initialize(AGENT).status()).as("a session that ended frees its place").isEqualTo(200);
    assertThat(initialize(AGENT).status()).isEqualTo(429);
  }

  @Test
  void anAgentOverItsPendingBudgetIsToldWhenToAskAgain() throws Exception {
    McpTestClient agent = new McpTestClient(broker.mcp).withToken(OTHER_AGENT).initialize();
    assertThat(agent.call("tools/call", ask(HUMAN_NAME, true)).result().getJsonObject("task")).isNotNull();

    JsonObject plain = agent.call("tools/call", ask(HUMAN_NAME, false).put("arguments", new JsonObject()
        .put("recipient", HUMAN_NAME).put("content", "A second one?"))).result();
    JsonObject task = agent.call("tools/call", ask(HUMAN_NAME, true).put("arguments", new JsonObject()
        .put("recipient", HUMAN_NAME).put("content", "A third one?"))).error();

    assertThat(plain.getBoolean("isError")).isTrue();
    assertThat(plain.getJsonArray("content").getJsonObject(0).getString("text"))
        .startsWith("The question was not asked: " + OTHER_AGENT_NAME + " already has 1 pending question,")
        .endsWith("retry in 30 seconds");
    assertThat(task.getInteger("code")).isEqualTo(-32602);
    assertThat(task.getString("message")).endsWith("retry in 30 seconds");
    assertThat(task.getJsonObject("data").getLong("retryAfterSeconds")).isEqualTo(30);
    assertThat(broker.as(ADMIN).listAll("status=pending&sender=" + OTHER_AGENT_NAME)).as("nothing more was asked")
        .hasSize(1);
  }

  /**
   * An open broker has no budgets, as documented: the same creates, naming the same agent, over MCP ({@code sender})
   * and over REST ({@code X-Ark-Agent}), all go through where every agent may create two a minute and hold one.
   */
  @Test
  void anOpenBrokerAppliesNoBudgetOverMcpOrRest(@TempDir Path openDir) throws Exception {
    TestBroker open = TestBroker.start(openDir, new JsonObject().put("budgets", new JsonObject()
        .put("maxPendingQuestions", 1).put("createsPerMinute", 2)));
    try {
      McpTestClient client = new McpTestClient(open.mcp).initialize();
      for (int i = 0; i < 4; i++) {
        JsonObject result = client.call("tools/call", new JsonObject().put("name", "ask_question").put("task",
            new JsonObject()).put("arguments", new JsonObject().put("recipient", HUMAN_NAME).put("sender", "bot")
            .put("content", "Over MCP, " + i + "?"))).result();
        assertThat(result.getJsonObject("task")).as("MCP create %d: %s", i, result).isNotNull();
        TestBroker.Response rest = open.send(HttpRequest.newBuilder(open.base.resolve("/questions"))
            .header("Content-Type", "application/json").header("X-Ark-Agent", "ark://agents/bot")
            .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("recipient", HUMAN_NAME)
                .put("content", "Over REST, " + i + "?").encode())));
        assertThat(rest.status()).as("REST create %d: %s", i, rest).isEqualTo(201);
      }
      assertThat(open.listAll("status=pending&sender=ark://agents/bot")).hasSize(8);
    } finally {
      open.close();
    }
  }
}
