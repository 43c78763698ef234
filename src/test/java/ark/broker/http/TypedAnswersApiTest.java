package ark.broker.http;

import ark.broker.testing.Forms;
import ark.broker.testing.Identities;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static ark.broker.http.QuestionsApiTest.assertError;
import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/** Form questions (responseSchema) and approvals over REST, signed in: what is refused changes nothing. */
class TypedAnswersApiTest {
  @TempDir
  static Path dir;
  static TestBroker broker;

  @BeforeAll
  static void start() throws Exception {
    broker = TestBroker.start(dir.resolve("data"), Identities.config(dir));
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  private static String ask(String body) throws Exception {
    TestBroker.Response created = broker.as(AGENT).post("/questions", body);
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json().getString("id");
  }

  private static String listVersion() throws Exception {
    return broker.as(ADMIN).get("/questions?limit=1").json().getString("resourceVersion");
  }

  /** Sends a refused answer and checks that neither the question nor the log moved. */
  private static void refused(String id, String body, String messagePart) throws Exception {
    JsonObject before = broker.as(HUMAN).get("/questions/" + id).json();
    String version = listVersion();

    assertError(broker.as(HUMAN).patch("/questions/" + id, body), 400, "BadRequest", messagePart);

    assertThat(broker.as(HUMAN).get("/questions/" + id).json()).isEqualTo(before);
    assertThat(listVersion()).isEqualTo(version);
  }

  @Test
  void aFormQuestionIsAnsweredWithACheckedObject() throws Exception {
    String id = ask(new JsonObject().put("recipient", HUMAN_NAME).put("content", "Deploy where?")
        .put("responseSchema", new JsonObject(Forms.DEPLOY)).encode());
    JsonObject asked = broker.as(HUMAN).get("/questions/" + id).json();
    assertThat(asked.getString("kind")).isEqualTo("question");
    assertThat(asked.getJsonObject("responseSchema")).isEqualTo(new JsonObject(Forms.DEPLOY));

    refused(id, "{\"answer\":{\"env\":\"qa\",\"replicas\":2}}", "answer.env must be one of [staging, prod]");
    refused(id, "{\"answer\":{\"env\":\"prod\"}}", "answer.replicas is required");
    refused(id, "{\"answer\":{\"env\":\"prod\",\"replicas\":11}}", "answer.replicas must be at most 10");
    refused(id, "{\"answer\":{\"env\":\"prod\",\"replicas\":2,\"contact\":\"ann\"}}", "answer.contact must be an email address");
    refused(id, "{\"answer\":{\"env\":\"prod\",\"replicas\":2,\"region\":\"eu\"}}", "answer.region is not a field");
    refused(id, "{\"answer\":[1]}", "answer must be a JSON object");
    refused(id, "{\"response\":\"prod\"}", "has a responseSchema: answer with an answer object");
    refused(id, "{\"response\":\"prod\",\"answer\":{}}", "give only one of response");

    JsonObject answered = broker.as(HUMAN).patch("/questions/" + id,
        "{\"answer\":{\"env\":\"prod\",\"replicas\":3,\"notify\":false}}").json();

    assertThat(answered.getString("status")).isEqualTo("answered");
    assertThat(answered.getJsonObject("answer")).isEqualTo(new JsonObject().put("env", "prod").put("replicas", 3).put("notify", false));
    assertThat(new JsonObject(answered.getString("response"))).isEqualTo(answered.getJsonObject("answer"));
    assertThat(answered.getString("answeredBy")).isEqualTo(HUMAN_NAME);
    assertThat(broker.as(AGENT).get("/questions/" + id).json().getJsonObject("answer").getInteger("replicas")).isEqualTo(3);
  }

  @Test
  void aSchemaOutsideTheElicitationSubsetIsRefusedNamingThePart() throws Exception {
    String version = listVersion();
    TestBroker.Response refused = broker.as(AGENT).post("/questions", new JsonObject().put("recipient", HUMAN_NAME)
        .put("content", "x").put("responseSchema", new JsonObject("{\"type\":\"object\",\"properties\":"
            + "{\"address\":{\"type\":\"object\",\"properties\":{}}}}")).encode());

    assertError(refused, 400, "BadRequest", "responseSchema.properties.address.type must be string, number, integer, boolean or array");
    assertThat(listVersion()).isEqualTo(version);
  }

  @Test
  void anApprovalIsDecidedWithAReasonByTheSignedInPerson() throws Exception {
    String id = ask(new JsonObject().put("recipient", HUMAN_NAME).put("content", "Drop table users?").put("kind", "approval")
        .put("reasonRequired", true).put("arguments", new JsonObject().put("table", "users")).encode());
    JsonObject asked = broker.as(HUMAN).get("/questions/" + id).json();
    assertThat(asked.getString("kind")).isEqualTo("approval");
    assertThat(asked.getBoolean("reasonRequired")).isTrue();
    assertThat(asked.getJsonObject("arguments")).isEqualTo(new JsonObject().put("table", "users"));

    refused(id, "{\"decision\":{\"action\":\"rejected\"}}", "decision.reason is required");
    refused(id, "{\"decision\":{\"action\":\"no\",\"reason\":\"x\"}}", "decision.action must be approved or rejected");
    refused(id, "{\"decision\":{\"action\":\"rejected\",\"reason\":\"x\",\"decidedBy\":\"ark://users/bob\"}}", "unknown field 'decidedBy'");
    refused(id, "{\"decision\":{\"action\":\"rejected\",\"reason\":\"x\",\"arguments\":{\"table\":\"t\"}}}", "go with approved only");
    refused(id, "{\"answer\":{\"a\":1}}", "is an approval: answer with a decision");
    assertThat(broker.as(OTHER_HUMAN).patch("/questions/" + id,
        "{\"decision\":{\"action\":\"approved\",\"reason\":\"mine now\"}}").status()).isIn(403, 404);

    JsonObject answered = broker.as(HUMAN).patch("/questions/" + id,
        "{\"decision\":{\"action\":\"approved\",\"reason\":\"a copy exists\",\"arguments\":{\"table\":\"users_old\"}}}").json();

    JsonObject decision = answered.getJsonObject("decision");
    assertThat(decision.getString("action")).isEqualTo("approved");
    assertThat(decision.getString("reason")).isEqualTo("a copy exists");
    assertThat(decision.getJsonObject("arguments")).isEqualTo(new JsonObject().put("table", "users_old"));
    assertThat(decision.getString("decidedBy")).isEqualTo(HUMAN_NAME);
    assertThat(decision.getString("decidedAt")).isEqualTo(answered.getString("answeredAt"));
    assertThat(answered.getString("response")).isEqualTo("approved");
    JsonArray history = broker.as(HUMAN).get("/questions/" + id + "/events").json().getJsonArray("items");
    assertThat(history.getJsonObject(history.size() - 1).getString("type")).isEqualTo("question_answered");
  }

  @Test
  void aTypedAnswerSurvivesARestartOfTheLog() throws Exception {
    String id = ask(new JsonObject().put("recipient", HUMAN_NAME).put("content", "Go?").put("kind", "approval").encode());
    broker.as(HUMAN).patch("/questions/" + id, "{\"decision\":{\"action\":\"rejected\",\"reason\":\"later\"}}");
    broker.close();
    broker = TestBroker.start(dir.resolve("data"), Identities.config(dir));

    assertThat(broker.as(HUMAN).get("/questions/" + id).json().getJsonObject("decision").getString("reason")).isEqualTo("later");
  }
}
