package ark.broker.auth;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.UUID;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/** The REST API with authentication on: who may see and do what, and that a refusal changes nothing. */
class RestIdentityTest {
  static TestBroker broker;
  @RegisterExtension
  static final BrokerExtension lifecycle = BrokerExtension.withIdentities(started -> broker = started);

  private static String ask(String token, String recipient) throws Exception {
    TestBroker.Response created = broker.as(token).post("/questions",
        new JsonObject().put("recipient", recipient).put("content", "Ship it?").encode());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json().getString("id");
  }

  @Test
  void withoutATokenEveryQuestionRouteIs401WithTheChallenge() throws Exception {
    TestBroker.Response refused = broker.get("/questions");

    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.header("WWW-Authenticate")).startsWith("Bearer resource_metadata=\"http://127.0.0.1:")
        .contains("/.well-known/oauth-protected-resource");
    assertThat(broker.as("not-a-token").get("/questions").header("WWW-Authenticate")).contains("error=\"invalid_token\"");
    assertThat(broker.get("/.well-known/oauth-protected-resource").json().getJsonArray("bearer_methods_supported"))
        .containsExactly("header");
    assertThat(broker.get("/healthz").status()).isEqualTo(200);
  }

  @Test
  void anAgentAsksAsItselfAndSeesOnlyItsOwn() throws Exception {
    String id = ask(AGENT, HUMAN_NAME);

    assertThat(broker.as(AGENT).get("/questions/" + id).json().getString("sender")).isEqualTo(AGENT_NAME);
    assertThat(broker.as(OTHER_AGENT).get("/questions/" + id).status()).isEqualTo(404);
    assertThat(broker.as(OTHER_AGENT).listAll("")).noneMatch(q -> q.getString("id").equals(id));
    assertThat(broker.as(OTHER_AGENT).delete("/questions/" + id).status()).isEqualTo(404);
    TestBroker.Response posing = broker.as(AGENT).post("/questions", new JsonObject().put("recipient", HUMAN_NAME)
        .put("content", "Posing?").put("sender", OTHER_AGENT_NAME).encode());
    assertThat(posing.status()).isEqualTo(403);
    assertThat(broker.as(ADMIN).get("/questions/" + id).json().getString("status")).isEqualTo("pending");
  }

  @Test
  void aServiceActsOnlyForTheAgentsItMayActFor() throws Exception {
    TestBroker.Response allowed = broker.as(SERVICE).send(java.net.http.HttpRequest.newBuilder(broker.base.resolve("/questions"))
        .header("Content-Type", "application/json").header("X-Ark-Agent", AGENT_NAME)
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(new JsonObject().put("recipient", HUMAN_NAME)
            .put("content", "For the reviewer").encode())));
    TestBroker.Response forbidden = broker.as(SERVICE).send(java.net.http.HttpRequest.newBuilder(broker.base.resolve("/questions"))
        .header("X-Ark-Agent", OTHER_AGENT_NAME).GET());

    assertThat(allowed.status()).isEqualTo(201);
    assertThat(allowed.json().getString("sender")).isEqualTo(AGENT_NAME);
    assertThat(forbidden.status()).isEqualTo(403);
    assertThat(broker.as(AGENT).get("/questions/" + allowed.json().getString("id")).status()).isEqualTo(200);
  }

  @Test
  void theRecipientAnswersAsItselfAndOthersCannot() throws Exception {
    String toAnn = ask(AGENT, HUMAN_NAME);
    String toTeam = ask(AGENT, TEAM);
    String body = new JsonObject().put("response", "yes").encode();

    assertThat(broker.as(OTHER_HUMAN).patch("/questions/" + toAnn, body).status()).isEqualTo(404);
    assertThat(broker.as(AGENT).patch("/questions/" + toAnn, body).status()).as("the sender may not answer").isEqualTo(403);
    assertThat(broker.as(HUMAN).patch("/questions/" + toAnn, new JsonObject().put("response", "yes")
        .put("answeredBy", OTHER_HUMAN_NAME).encode()).status()).isEqualTo(403);
    assertThat(broker.as(ADMIN).get("/questions/" + toAnn).json().getString("status")).as("refusals change nothing")
        .isEqualTo("pending");
    JsonObject answered = broker.as(HUMAN).patch("/questions/" + toAnn, body).json();
    assertThat(answered.getString("answeredBy")).isEqualTo(HUMAN_NAME);
    assertThat(broker.as(HUMAN).patch("/questions/" + toTeam, body).json().getString("answeredBy")).isEqualTo(HUMAN_NAME);
  }

  @Test
  void anAdminAnswersOnBehalfAndTheHistorySaysWhoReallyDid() throws Exception {
    String id = ask(AGENT, HUMAN_NAME);

    broker.as(ADMIN).patch("/questions/" + id, new JsonObject().put("response", "ok").put("answeredBy", HUMAN_NAME).encode());
    JsonArray events = broker.as(AGENT).get("/questions/" + id + "/events").json().getJsonArray("items");

    assertThat(broker.as(AGENT).get("/questions/" + id).json().getString("answeredBy")).isEqualTo(HUMAN_NAME);
    assertThat(events.getJsonObject(0).getString("type")).isEqualTo("question_created");
    assertThat(events.getJsonObject(0).getJsonObject("by").getString("principal")).isEqualTo(AGENT_NAME);
    assertThat(events.getJsonObject(1).getString("type")).isEqualTo("question_answered");
    assertThat(events.getJsonObject(1).getJsonObject("by").getString("principal")).isEqualTo(ADMIN_NAME);
    assertThat(events.getJsonObject(1).getJsonObject("by").getString("method")).isEqualTo("token");
    assertThat(events.getJsonObject(1).getJsonObject("by").getString("address")).isEqualTo("127.0.0.1");
    assertThat(broker.as(AGENT).get("/questions/" + id).json().containsKey("history")).isFalse();
  }

  @Test
  void theRecipientDeclinesWithAReasonTheHistoryKeeps() throws Exception {
    String id = ask(AGENT, TEAM);

    TestBroker.Response declined = broker.as(HUMAN).delete("/questions/" + id + "?reason=Not%20my%20area");
    JsonObject last = broker.as(AGENT).get("/questions/" + id + "/events").json().getJsonArray("items").getJsonObject(1);

    assertThat(declined.json().getString("status")).isEqualTo("cancelled");
    assertThat(last.getString("type")).isEqualTo("question_cancelled");
    assertThat(last.getString("reason")).isEqualTo("Not my area");
    assertThat(last.getJsonObject("by").getString("principal")).isEqualTo(HUMAN_NAME);
    assertThat(broker.as(HUMAN).delete("/questions/" + ask(AGENT, TEAM) + "?reason=" + "x".repeat(1100)).status())
        .isEqualTo(400);
  }

  @Test
  void theSameIdempotencyKeyWithOtherContentIs422AndOtherSendersGetTheirOwnQuestion() throws Exception {
    String key = "key-" + UUID.randomUUID();
    String first = new JsonObject().put("recipient", HUMAN_NAME).put("content", "First?").put("idempotencyKey", key).encode();
    TestBroker.Response created = broker.as(AGENT).post("/questions", first);
    TestBroker.Response replayed = broker.as(AGENT).post("/questions", first);
    TestBroker.Response changed = broker.as(AGENT).post("/questions",
        new JsonObject().put("recipient", HUMAN_NAME).put("content", "Other?").put("idempotencyKey", key).encode());
    TestBroker.Response byAnother = broker.as(OTHER_AGENT).post("/questions", first);

    assertThat(created.status()).isEqualTo(201);
    assertThat(replayed.status()).isEqualTo(200);
    assertThat(changed.status()).isEqualTo(422);
    assertThat(changed.error().getString("message")).contains("idempotency key");
    assertThat(byAnother.status()).isEqualTo(201);
    assertThat(byAnother.json().getString("id")).isNotEqualTo(created.json().getString("id"));
  }

  @Test
  void onlyAdminsReadTheAuditTrail() throws Exception {
    String id = ask(AGENT, HUMAN_NAME);

    TestBroker.Response audit = broker.as(ADMIN).get("/audit?since=0");

    assertThat(broker.as(HUMAN).get("/audit").status()).isEqualTo(403);
    assertThat(audit.status()).isEqualTo(200);
    assertThat(audit.header("Content-Type")).isEqualTo("application/x-ndjson");
    assertThat(audit.body().lines().map(JsonObject::new))
        .anyMatch(line -> line.getString("question").equals(id) && line.getString("type").equals("question_created")
            && line.getJsonObject("by").getString("principal").equals(AGENT_NAME));
    assertThat(broker.as(ADMIN).get("/audit?since=x").status()).isEqualTo(400);
  }

  @Test
  void whoamiSaysWhoTheTokenIs() throws Exception {
    JsonObject me = broker.as(HUMAN).get("/whoami").json();

    assertThat(me.getString("name")).isEqualTo(HUMAN_NAME);
    assertThat(me.getString("kind")).isEqualTo("human");
    assertThat(me.getJsonArray("teams")).containsExactly(TEAM);
  }
}
