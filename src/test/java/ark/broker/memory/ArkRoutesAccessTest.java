package ark.broker.memory;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Identities;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Who may use Ark's broker routes on a broker that asks for tokens: services and admins with their tokens, and Ark's
 * in-cluster callers without one from the trusted networks (here loopback); agents and people are refused and
 * change nothing, and a request without a token from the trusted networks is still refused everywhere else.
 */
class ArkRoutesAccessTest {
  static TestBroker broker;
  /** A broker that trusts no network: a request without a token is anonymous there. */
  static TestBroker untrusting;

  @RegisterExtension
  static final BrokerExtension lifecycle = BrokerExtension.withIdentities(new JsonObject()
      .put("auth", new JsonObject().put("clusterNetworks", new JsonArray().add("127.0.0.0/8").add("::1"))),
      started -> broker = started);

  @RegisterExtension
  static final BrokerExtension untrustingLifecycle = BrokerExtension.withIdentities(started -> untrusting = started);

  /** Every route and watch of Ark's broker, with a body as Ark's callers send it. */
  private static final List<String[]> ROUTES = List.of(
      new String[] {"POST", "/messages", message("c-table", "hi")},
      new String[] {"GET", "/messages", null},
      new String[] {"GET", "/messages?watch=true", null},
      new String[] {"GET", "/messages?watch=true&conversation_id=c-table", null},
      new String[] {"GET", "/messages?watch=true&cursor=0", null},
      new String[] {"DELETE", "/messages", null},
      new String[] {"POST", "/conversations", "{}"},
      new String[] {"GET", "/conversations", null},
      new String[] {"GET", "/conversations/c-table", null},
      new String[] {"DELETE", "/conversations/c-table", null},
      new String[] {"DELETE", "/conversations/c-table/queries/q-1/messages", null},
      new String[] {"DELETE", "/queries/q-1/messages", null},
      new String[] {"DELETE", "/conversations", null},
      new String[] {"GET", "/memory-status", null},
      new String[] {"POST", "/stream/q-table", "{\"id\":\"c1\",\"choices\":[]}\n"},
      new String[] {"POST", "/stream/q-table/complete", "{}"},
      new String[] {"GET", "/stream/q-table", null},
      new String[] {"GET", "/stream", null},
      new String[] {"GET", "/stream?watch=true", null},
      new String[] {"DELETE", "/stream", null},
      new String[] {"POST", "/events", event("uid-table")},
      new String[] {"GET", "/events", null},
      new String[] {"GET", "/events?watch=true", null},
      new String[] {"GET", "/events/uid-table", null},
      new String[] {"GET", "/events/uid-table?watch=true", null},
      new String[] {"DELETE", "/events/uid-table", null},
      new String[] {"DELETE", "/events", null},
      new String[] {"POST", "/sessions", "{\"sessionId\":\"s-table\"}"},
      new String[] {"GET", "/sessions", null},
      new String[] {"GET", "/sessions/s-table", null},
      new String[] {"DELETE", "/sessions", null},
      new String[] {"DELETE", "/sessions/queries/q-table", null},
      new String[] {"POST", "/v1/traces", "{\"resourceSpans\":[]}"},
      new String[] {"GET", "/traces", null},
      new String[] {"GET", "/traces?watch=true", null},
      new String[] {"GET", "/traces/0af7651916cd43dd8448eb211c80319c", null},
      new String[] {"GET", "/traces/0af7651916cd43dd8448eb211c80319c?watch=true", null},
      new String[] {"DELETE", "/traces", null});

  private static String event(String queryId) {
    return new JsonObject().put("timestamp", "2026-11-26T00:00:00Z").put("eventType", "Normal")
        .put("reason", "QueryExecutionStart").put("message", "no")
        .put("data", new JsonObject().put("queryId", queryId).put("queryName", "q-refused")
            .put("sessionId", "s-refused")).encode();
  }

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

  /**
   * One access decision, in the route, before anything is read or sent: every route and every watch of Ark's stores x
   * agent, person, service, admin, a caller from a trusted network without a token, and one from elsewhere.
   */
  @Test
  void everyRouteAndWatchDecidesAccessBeforeAnythingIsSent() throws Exception {
    List<String> wrong = new ArrayList<>();
    for (String[] route : ROUTES) {
      expect(wrong, route, broker.as(Identities.AGENT), "agent", 403);
      expect(wrong, route, broker.as(Identities.HUMAN), "person", 403);
      expect(wrong, route, untrusting, "no token", 401);
      boolean purge = PURGES.contains(route[0] + " " + route[1]);
      expect(wrong, route, broker.as(Identities.SERVICE), "service", purge ? 403 : 0);
      expect(wrong, route, broker.as(Identities.ADMIN), "admin", 0);
      expect(wrong, route, broker, "trusted network", purge ? 403 : 0);
    }
    assertThat(wrong).isEmpty();
  }

  /** A whole store is purged by an admin's credential only, and by nobody where purges are turned off. */
  @Test
  void onlyAnAdminByCredentialPurgesAWholeStore(@TempDir Path dataDir) throws Exception {
    TestBroker noPurges = TestBroker.start(dataDir, new JsonObject().put("arkApi", new JsonObject().put("allowPurges", false)));
    try {
      for (String purge : PURGES) {
        String path = purge.substring("DELETE ".length());
        TestBroker.Response refused = noPurges.delete(path);
        assertThat(refused.status()).as("%s with purges off", path).isEqualTo(405);
        assertThat(refused.json().getJsonObject("error").getString("code")).isEqualTo("METHOD_NOT_ALLOWED");
        assertThat(refused.header("Allow")).as("%s: what the path allows", path).contains("GET");
        assertThat(broker.as(Identities.ADMIN).delete(path).status()).as("%s by an admin", path).isEqualTo(200);
      }
      assertThat(noPurges.delete("/conversations/c-kept").status()).as("a scoped delete").isEqualTo(200);
      assertThat(broker.delete("/queries/q-1/messages").status()).as("a scoped delete, trusted network").isEqualTo(200);
    } finally {
      noPurges.close();
    }
  }

  /** The routes that empty a whole store (upstream is removing them; DELETE /conversations stays, as there). */
  private static final List<String> PURGES = List.of("DELETE /messages", "DELETE /stream", "DELETE /events",
      "DELETE /sessions", "DELETE /traces");

  /** Records a mismatch: {@code refusal} expected with the envelope and nothing else, or (0) anything but a refusal. */
  private static void expect(List<String> wrong, String[] route, TestBroker caller, String who, int refusal)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(caller.base.resolve(route[1]))
        .timeout(Duration.ofSeconds(10))
        .method(route[0], route[2] == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(route[2]));
    if (route[2] != null) {
      request.header("Content-Type", route[1].startsWith("/stream") ? "application/x-ndjson" : "application/json");
    }
    HttpResponse<InputStream> response = caller.open(request);
    try (InputStream body = response.body()) {
      int status = response.statusCode();
      String line = route[0] + " " + route[1] + " as " + who + ": " + status;
      if (refusal != 0 && status != refusal) {
        // Not read: what a watch let through would never end.
        wrong.add(line + " (expected " + refusal + ")");
      } else if (refusal != 0 && !new String(body.readAllBytes(), StandardCharsets.UTF_8).contains("\"error\"")) {
        wrong.add(line + " without the error envelope");
      } else if (refusal == 0 && (status == 401 || status == 403 || status >= 500)) {
        wrong.add(line + " (expected to be served)");
      }
    }
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
