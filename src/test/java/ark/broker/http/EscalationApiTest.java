package ark.broker.http;

import ark.broker.testing.Eventually;
import ark.broker.testing.Identities;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static ark.broker.http.QuestionsApiTest.assertError;
import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reminders, escalations and timeouts as people and agents see them, signed in: who may see and answer an escalated
 * question, the events a watch and the history show, defaults from escalation rules, a default answer on timeout
 * over REST and MCP, and bad escalations refused with nothing written.
 */
class EscalationApiTest {
  @TempDir
  static Path dir;
  static TestBroker broker;

  @BeforeAll
  static void start() throws Exception {
    JsonObject rules = new JsonObject().put("escalation", new JsonObject().put("rules", new JsonArray()
        .add(new JsonObject().put("priority", "low").put("escalation", new JsonObject().put("remindAfterSeconds", 3600)))));
    broker = TestBroker.start(dir.resolve("data"), Identities.config(dir).mergeIn(rules, true));
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  private static String ask(String body) throws Exception {
    TestBroker.Response created = broker.as(AGENT).post("/questions", body.replace('\'', '"'));
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json().getString("id");
  }

  private static String listVersion() throws Exception {
    return broker.as(ADMIN).get("/questions?limit=1").json().getString("resourceVersion");
  }

  @Test
  void theTeamAQuestionIsEscalatedToMaySeeAndAnswerItFromThenOn() throws Exception {
    String id = ask("{'recipient':'" + OTHER_HUMAN_NAME + "','content':'Approve the budget?',"
        + "'escalation':{'escalateAfterSeconds':1,'escalateTo':['" + TEAM + "']}}");
    try (SseStream watch = broker.as(HUMAN).watch("", null)) {
      assertThat(broker.as(HUMAN).get("/questions/" + id).status()).as("not ann's question yet").isEqualTo(404);

      SseStream.SseEvent first;
      do {
        first = watch.next(20, TimeUnit.SECONDS);
      } while (first.data() == null || !first.data().contains(id));
      assertThat(first.event()).as("the first ann hears of it").isEqualTo("question_escalated");
    }
    JsonObject seen = broker.as(HUMAN).get("/questions/" + id).json();
    assertThat(seen.getJsonObject("escalation").getJsonArray("escalateTo")).containsExactly(TEAM);
    assertThat(seen.getString("escalatedAt")).isNotNull();
    assertThat(broker.as(HUMAN).get("/questions?recipient=" + TEAM).json().getJsonArray("items").stream()
        .map(q -> ((JsonObject) q).getString("id"))).contains(id);

    TestBroker.Response answered = broker.as(HUMAN).patch("/questions/" + id, "{\"response\":\"yes\"}");
    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(answered.json().getString("answeredBy")).isEqualTo(HUMAN_NAME);
    assertThat(answered.json().containsKey("answeredOnTimeout")).isFalse();
  }

  @Test
  void anApprovalNobodyDecidesIsRejectedByItsDefaultAndItsHistorySaysWhy() throws Exception {
    String id = ask("{'recipient':'" + HUMAN_NAME + "','content':'Drop the table?','kind':'approval','ttlSeconds':1,"
        + "'escalation':{'remindAfterSeconds':1,'onTimeout':{'decision':{'action':'rejected','reason':'nobody decided in time'}}}}");

    JsonObject decided = Eventually.until("the timeout decides", () -> broker.as(AGENT).get("/questions/" + id).json(),
        question -> question.getString("status").equals("answered"));

    assertThat(decided.getBoolean("answeredOnTimeout")).isTrue();
    assertThat(decided.getString("answeredBy")).isEqualTo("ark://users/system:broker");
    assertThat(decided.getJsonObject("decision").getString("action")).isEqualTo("rejected");
    assertThat(decided.getJsonObject("decision").getString("reason")).isEqualTo("nobody decided in time");
    JsonArray history = broker.as(ADMIN).get("/questions/" + id + "/events").json().getJsonArray("items");
    JsonObject last = history.getJsonObject(history.size() - 1);
    assertThat(last.getString("type")).isEqualTo("question_answered");
    assertThat(last.getJsonObject("by").getString("principal")).isEqualTo("ark://users/system:broker");
    assertThat(last.getString("reason")).contains("answered as escalation.onTimeout says");
    assertThat(history.stream().map(item -> ((JsonObject) item).getString("type")))
        .as("the timeout came with the reminder: the reminder is moot").doesNotContain("question_reminded");
    assertThat(broker.as(HUMAN).patch("/questions/" + id, "{\"decision\":{\"action\":\"approved\"}}").status()).isEqualTo(409);
  }

  @Test
  void anAgentWaitingOverMcpGetsTheDefaultAnswerMarkedAsSuch() throws Exception {
    McpTestClient agent = new McpTestClient(broker.mcp).withToken(AGENT).initialize();

    JsonObject result = agent.call("tools/call", new JsonObject().put("name", "ask_question").put("arguments", new JsonObject()
        .put("recipient", HUMAN_NAME).put("content", "Proceed with the migration?").put("options", new JsonArray().add("proceed").add("stop"))
        .put("ttlSeconds", 1).put("escalation", new JsonObject().put("onTimeout", new JsonObject().put("response", "proceed")))))
        .result();

    assertThat(result.getBoolean("isError", false)).isFalse();
    JsonObject answer = result.getJsonObject("structuredContent");
    assertThat(answer.getString("response")).isEqualTo("proceed");
    assertThat(answer.getBoolean("answeredOnTimeout")).isTrue();
    assertThat(result.getJsonArray("content").getJsonObject(0).getString("text")).startsWith("Nobody answered question ");
  }

  @Test
  void questionsWithoutTheirOwnEscalationGetTheFirstMatchingRules() throws Exception {
    String low = ask("{'recipient':'" + HUMAN_NAME + "','content':'Rename the wiki page?','priority':'low'}");
    String optedOut = ask("{'recipient':'" + HUMAN_NAME + "','content':'Rename it later?','priority':'low','escalation':{}}");
    String high = ask("{'recipient':'" + HUMAN_NAME + "','content':'Page the on-call?','priority':'high'}");

    assertThat(broker.as(AGENT).get("/questions/" + low).json().getJsonObject("escalation"))
        .isEqualTo(new JsonObject().put("remindAfterSeconds", 3600));
    assertThat(broker.as(AGENT).get("/questions/" + optedOut).json().getJsonObject("escalation")).isEqualTo(new JsonObject());
    assertThat(broker.as(AGENT).get("/questions/" + high).json().containsKey("escalation")).isFalse();
  }

  @Test
  void aBadEscalationIsRefusedWithNothingWritten() throws Exception {
    String version = listVersion();

    assertError(broker.as(AGENT).post("/questions", "{\"recipient\":\"" + HUMAN_NAME + "\",\"content\":\"x\","
        + "\"escalation\":{\"escalateAfterSeconds\":60}}"), 400, "BadRequest", "escalation.escalateAfterSeconds and escalation.escalateTo go together");
    assertError(broker.as(AGENT).post("/questions", "{\"recipient\":\"" + HUMAN_NAME + "\",\"content\":\"x\","
        + "\"escalation\":{\"onTimeout\":{\"response\":\"proceed\"}}}"), 400, "BadRequest", "give it expiresAt or ttlSeconds");
    assertError(broker.as(AGENT).post("/questions", "{\"recipient\":\"" + HUMAN_NAME + "\",\"content\":\"x\",\"kind\":\"approval\","
        + "\"ttlSeconds\":60,\"escalation\":{\"onTimeout\":{\"response\":\"later\"}}}"), 400, "BadRequest",
        "escalation.onTimeout does not answer this question");

    assertThat(listVersion()).isEqualTo(version);
  }
}
