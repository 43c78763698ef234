package ark.broker.memory;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Identities;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who may use Ark's broker routes on a broker that asks for tokens: services and admins with their tokens, and Ark's
 * in-cluster callers without one from the trusted networks (here loopback); agents and people are refused and
 * change nothing, and a request without a token from the trusted networks is still refused everywhere else.
 */
class ArkRoutesAccessTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = BrokerExtension.withIdentities(new JsonObject()
      .put("auth", new JsonObject().put("clusterNetworks", new JsonArray().add("127.0.0.0/8").add("::1"))),
      started -> broker = started);

  private static String message(String conversation, String text) {
    return new JsonObject().put("conversation_id", conversation).put("query_id", "q-1")
        .put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", text))).encode();
  }

  @Test
  void servicesAdminsAndInClusterCallersWriteAndReadMemory() throws Exception {
    assertThat(broker.as(Identities.SERVICE).post("/messages", message("c-service", "hi")).status()).isEqualTo(200);
    assertThat(broker.as(Identities.ADMIN).post("/messages", message("c-admin", "hi")).status()).isEqualTo(200);
    assertThat(broker.post("/messages", message("c-cluster", "hi")).status()).as("no token, from a trusted network")
        .isEqualTo(200);

    assertThat(broker.get("/messages?conversation_id=c-service").json().getJsonArray("items")).hasSize(1);
  }

  @Test
  void agentsAndPeopleAreRefusedAndChangeNothing() throws Exception {
    for (String token : new String[] {Identities.AGENT, Identities.HUMAN}) {
      Response written = broker.as(token).post("/messages", message("c-refused", "no"));
      Response purged = broker.as(token).delete("/messages");

      assertThat(written.status()).isEqualTo(403);
      assertThat(written.json().getJsonObject("error").getString("code")).isEqualTo("FORBIDDEN");
      assertThat(purged.status()).isEqualTo(403);
    }
    assertThat(broker.get("/messages?conversation_id=c-refused").json().getInteger("total")).isZero();
  }

  @Test
  void agentsAndPeopleAreRefusedOnEveryOtherArkStoreAndChangeNothing() throws Exception {
    String event = new JsonObject().put("timestamp", "2026-11-26T00:00:00Z").put("eventType", "Normal")
        .put("reason", "QueryExecutionStart").put("message", "no")
        .put("data", new JsonObject().put("queryId", "uid-refused").put("queryName", "q-refused")
            .put("sessionId", "s-refused")).encode();
    for (String token : new String[] {Identities.AGENT, Identities.HUMAN}) {
      TestBroker caller = broker.as(token);
      assertThat(caller.post("/stream/q-refused", "{\"id\":\"no\"}").status()).as("a chunk").isEqualTo(403);
      assertThat(caller.post("/events", event).status()).as("an event").isEqualTo(403);
      assertThat(caller.post("/v1/traces", "{\"resourceSpans\":[]}").status()).as("spans").isEqualTo(403);
      assertThat(caller.delete("/stream").status()).isEqualTo(403);
      assertThat(caller.delete("/events").status()).isEqualTo(403);
    }
    assertThat(broker.post("/stream/q-refused/complete", "{}").status()).as("no chunk was kept").isEqualTo(404);
    assertThat(broker.get("/events/uid-refused").json().getJsonArray("items")).isEmpty();
  }

  @Test
  void aWrongTokenIsRefusedEvenFromATrustedNetwork() throws Exception {
    Response refused = broker.as("not-a-token").post("/messages", message("c-wrong", "no"));

    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.json().getJsonObject("error").getString("code")).isEqualTo("UNAUTHORIZED");
  }

  @Test
  void theInClusterCallerReachesArksRoutesOnly() throws Exception {
    assertThat(broker.get("/whoami").status()).isEqualTo(401);
    assertThat(broker.get("/questions").status()).isEqualTo(401);
    assertThat(broker.get("/memory-status").status()).isEqualTo(200);
  }
}
