package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Forms;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static ark.broker.testing.Eventually.until;
import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/** ask_question with a form or as an approval: the typed answer in structuredContent, and waitSeconds. */
class TypedAnswersMcpTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject(), started -> broker = started);

  private static String pendingFor(String recipient) throws Exception {
    return until("a question for " + recipient, () -> broker.get("/questions?recipient=" + recipient).json().getJsonArray("items"),
        items -> !items.isEmpty()).getJsonObject(0).getString("id");
  }

  private static JsonObject ask(JsonObject arguments) {
    return new JsonObject().put("name", "ask_question").put("arguments", arguments);
  }

  @Test
  void theToolSaysItReturnsTypedAnswers() throws Exception {
    JsonArray tools = new McpTestClient(broker.mcp).initialize().call("tools/list", new JsonObject()).result().getJsonArray("tools");
    JsonObject askTool = tools.stream().map(JsonObject.class::cast).filter(t -> t.getString("name").equals("ask_question"))
        .findFirst().orElseThrow();

    JsonObject output = askTool.getJsonObject("outputSchema").getJsonObject("properties");
    assertThat(output.getJsonObject("answer").getString("type")).isEqualTo("object");
    assertThat(output.getJsonObject("decision").getJsonObject("properties").getJsonObject("action").getJsonArray("enum"))
        .containsExactly("approved", "rejected");
    JsonObject input = askTool.getJsonObject("inputSchema").getJsonObject("properties");
    assertThat(input.fieldNames()).contains("responseSchema", "kind", "reasonRequired", "arguments", "waitSeconds");
    assertThat(askTool.getString("description")).contains("get_question");
  }

  @Test
  void aFormAnswerComesBackAsStructuredContentAfterAWrongOneWasRefused() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();
    try (SseStream stream = client.waitingCall(ask(new JsonObject().put("recipient", recipient).put("content", "Deploy where?")
        .put("responseSchema", new JsonObject(Forms.DEPLOY))))) {
      String id = pendingFor(recipient);
      assertThat(broker.patch("/questions/" + id, "{\"answer\":{\"env\":\"moon\",\"replicas\":2}}").status()).isEqualTo(400);
      broker.patch("/questions/" + id, "{\"answer\":{\"env\":\"staging\",\"replicas\":2}}");

      JsonObject result = McpTestClient.nextResponse(stream).getJsonObject("result");

      assertThat(result.getBoolean("isError")).isFalse();
      assertThat(result.getJsonObject("structuredContent").getJsonObject("answer"))
          .isEqualTo(new JsonObject().put("env", "staging").put("replicas", 2));
      assertThat(new JsonObject(result.getJsonArray("content").getJsonObject(0).getString("text")))
          .isEqualTo(result.getJsonObject("structuredContent"));
    }
  }

  @Test
  void anApprovalAskedWithWaitSecondsIsPendingThenGetQuestionCollectsTheDecision() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();

    JsonObject pending = client.call("tools/call", ask(new JsonObject().put("recipient", recipient)
        .put("content", "May I delete branch old-ui?").put("kind", "approval").put("waitSeconds", 1))).result();

    assertThat(pending.getBoolean("isError")).isFalse();
    String id = pending.getJsonObject("structuredContent").getString("questionId");
    assertThat(pending.getJsonObject("structuredContent").getString("status")).isEqualTo("pending");
    assertThat(pending.getJsonArray("content").getJsonObject(0).getString("text")).contains("get_question");
    broker.patch("/questions/" + id, "{\"decision\":{\"action\":\"rejected\",\"reason\":\"still in use\"}}");

    JsonObject collected = client.call("tools/call", new JsonObject().put("name", "get_question")
        .put("arguments", new JsonObject().put("questionId", id))).result().getJsonObject("structuredContent");

    assertThat(collected.getString("status")).isEqualTo("answered");
    assertThat(collected.getString("response")).isEqualTo("rejected");
    assertThat(collected.getJsonObject("decision").getString("action")).isEqualTo("rejected");
    assertThat(collected.getJsonObject("decision").getString("reason")).isEqualTo("still in use");
    assertThat(collected.getJsonObject("decision").getString("decidedAt")).isNotBlank();
  }

  @Test
  void aSchemaOutsideTheSubsetOrABadWaitIsAToolErrorNamingIt() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    String recipient = someone();

    JsonObject nested = client.call("tools/call", ask(new JsonObject().put("recipient", recipient).put("content", "x")
        .put("responseSchema", new JsonObject("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"x\"}}}"))))
        .result();
    JsonObject badWait = client.call("tools/call", ask(new JsonObject().put("recipient", recipient).put("content", "x")
        .put("waitSeconds", 0))).result();

    assertThat(nested.getBoolean("isError")).isTrue();
    assertThat(nested.getJsonArray("content").getJsonObject(0).getString("text")).contains("responseSchema.properties.a.pattern");
    assertThat(badWait.getJsonArray("content").getJsonObject(0).getString("text")).contains("waitSeconds must be a whole number");
    assertThat(broker.get("/questions?recipient=" + recipient).json().getJsonArray("items")).isEmpty();
  }
}
