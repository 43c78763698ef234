package ark.broker.auth;

import ark.broker.testing.Identities;
import ark.broker.testing.LoopbackIssuer;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.TestBroker;
import com.nimbusds.jwt.JWTClaimsSet;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The access rules as a table: every REST route and MCP method or tool, called by each kind of caller, against a
 * question the agent AGENT asked of the human ann. Each row says what the caller gets; a refusal must leave every
 * question and the audit trail exactly as they were. Channel actions have their own table in ChannelIdentityTest.
 */
class AccessMatrixTest {
  /** Who calls: a token, and the agent the request says it acts for ({@code X-Ark-Agent}), if any. */
  enum Caller {
    OWNER_AGENT(AGENT, null), OTHER_AGENT(Identities.OTHER_AGENT, null), SERVICE_FOR_ALLOWED(SERVICE, AGENT_NAME),
    SERVICE_FOR_FORBIDDEN(SERVICE, OTHER_AGENT_NAME), RECIPIENT(HUMAN, null), OTHER_HUMAN(Identities.OTHER_HUMAN, null),
    ADMIN(Identities.ADMIN, null), NO_TOKEN(null, null), EXPIRED_TOKEN(null, null), WRONG_AUDIENCE(null, null),
    TAMPERED_SIGNATURE(null, null),
    /** A valid OIDC token of a user the identity provider named like the static admin: not that principal. */
    IDP_USER_NAMED_LIKE_ADMIN(null, null);

    final String token;
    final String actingFor;

    Caller(String token, String actingFor) {
      this.token = token;
      this.actingFor = actingFor;
    }
  }

  private static final String AUDIENCE = "ark-broker";

  @TempDir
  static Path dir;
  static TestBroker broker;
  static LoopbackIssuer issuer;
  static final Map<Caller, String> OIDC_TOKENS = new java.util.EnumMap<>(Caller.class);

  @BeforeAll
  static void start() throws Exception {
    issuer = LoopbackIssuer.start();
    JsonObject config = Identities.config(dir);
    config.getJsonObject("auth").put("oidc", issuer.oidcConfig(AUDIENCE));
    // Hundreds of rows, each writing: durability is not what this table is about.
    config.put("store", new JsonObject().put("fsync", false));
    // The agent asks a question for every row: budgets have their own tests (RestBudgetsTest).
    config.put("budgets", new JsonObject().put("createsPerMinute", 0).put("maxPendingQuestions", 0));
    broker = TestBroker.start(dir.resolve("data"), config);

    Instant now = Instant.now();
    OIDC_TOKENS.put(Caller.EXPIRED_TOKEN, issuer.signed(new JWTClaimsSet.Builder().issuer(issuer.issuer())
        .audience(AUDIENCE).subject("ann").issueTime(Date.from(now.minusSeconds(7200)))
        .expirationTime(Date.from(now.minusSeconds(3600))).build()));
    OIDC_TOKENS.put(Caller.WRONG_AUDIENCE, issuer.token("ann", "another-service", Map.of()));
    OIDC_TOKENS.put(Caller.IDP_USER_NAMED_LIKE_ADMIN, issuer.token(ADMIN_NAME.substring("ark://users/".length()), AUDIENCE,
        Map.of()));
    String valid = issuer.token("ann", AUDIENCE, Map.of());
    String[] parts = valid.split("\\.");
    String forged = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8).replace("\"ann\"", "\"root\"");
    OIDC_TOKENS.put(Caller.TAMPERED_SIGNATURE, parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
        .encodeToString(forged.getBytes(StandardCharsets.UTF_8)) + "." + parts[2]);
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
    issuer.close();
  }

  private static String tokenOf(Caller caller) {
    return caller.token != null ? caller.token : OIDC_TOKENS.get(caller);
  }

  // ---- REST ----

  /** A route, and what each caller gets, in the order of {@link Caller}'s constants. */
  record Route(String name, int[] statuses) {
  }

  private static final int NOT_AUTHENTICATED = 401;

  static Stream<Arguments> restRows() {
    List<Arguments> rows = new ArrayList<>();
    //                                     owner other svcOK svcNo  ann  bob admin
    add(rows, "GET /questions",             200, 200, 200, 403, 200, 200, 200);
    add(rows, "POST /questions",            201, 201, 201, 403, 201, 201, 201);
    add(rows, "GET /questions/{id}",        200, 404, 200, 403, 200, 404, 200);
    add(rows, "GET /questions/{id}/events", 200, 404, 200, 403, 200, 404, 200);
    add(rows, "PATCH /questions/{id}",      403, 404, 403, 403, 200, 404, 200);
    add(rows, "DELETE /questions/{id}",     200, 404, 200, 403, 200, 404, 200);
    add(rows, "GET /questions?watch=true",  200, 200, 200, 403, 200, 200, 200);
    add(rows, "GET /whoami",                200, 200, 200, 403, 200, 200, 200);
    add(rows, "GET /audit",                 403, 403, 403, 403, 403, 403, 200);
    return rows.stream();
  }

  private static void add(List<Arguments> rows, String route, int... authenticated) {
    Caller[] callers = Caller.values();
    for (int i = 0; i < callers.length; i++) {
      rows.add(Arguments.of(route, callers[i], i < authenticated.length ? authenticated[i] : NOT_AUTHENTICATED));
    }
  }

  @ParameterizedTest(name = "{0} by {1} -> {2}")
  @MethodSource("restRows")
  void restRoute(String route, Caller caller, int expected) throws Exception {
    String id = question();
    String before = state();

    TestBroker.Response response = rest(route, caller, id);

    assertThat(response.status()).as(route + " by " + caller + ": " + response.body()).isEqualTo(expected);
    if (expected >= 400) {
      assertThat(response.header("Content-Type")).startsWith("application/json");
      assertThat(state()).as("a refusal changes nothing").isEqualTo(before);
    }
    if (expected == 401) {
      assertThat(response.header("WWW-Authenticate")).startsWith("Bearer resource_metadata=");
    }
    if (route.equals("GET /questions") && expected == 200) {
      boolean sees = Stream.of(Caller.OWNER_AGENT, Caller.SERVICE_FOR_ALLOWED, Caller.RECIPIENT, Caller.ADMIN)
          .anyMatch(caller::equals);
      assertThat(response.json().getJsonArray("items").stream().anyMatch(q -> ((JsonObject) q).getString("id").equals(id)))
          .as("whether " + caller + " sees the question in the list").isEqualTo(sees);
    }
  }

  private static TestBroker.Response rest(String route, Caller caller, String id) throws Exception {
    String method = route.substring(0, route.indexOf(' '));
    String path = route.substring(route.indexOf(' ') + 1).replace("{id}", id);
    HttpRequest.Builder request = HttpRequest.newBuilder(broker.base.resolve(path));
    String body = switch (route) {
      case "POST /questions" -> new JsonObject().put("recipient", HUMAN_NAME).put("content", "Another?").encode();
      case "PATCH /questions/{id}" -> new JsonObject().put("response", "yes").encode();
      default -> null;
    };
    request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (caller.actingFor != null) {
      request.header("X-Ark-Agent", caller.actingFor);
    }
    if (route.contains("watch=true")) {
      return watchStatus(request, caller);
    }
    return broker.as(tokenOf(caller)).send(request);
  }

  /** A watch streams forever: its status and headers are what the table is about. */
  private static TestBroker.Response watchStatus(HttpRequest.Builder request, Caller caller) throws Exception {
    if (tokenOf(caller) != null) {
      request.header("Authorization", "Bearer " + tokenOf(caller));
    }
    java.net.http.HttpResponse<java.io.InputStream> response = broker.http.send(request.build(),
        java.net.http.HttpResponse.BodyHandlers.ofInputStream());
    try (java.io.InputStream body = response.body()) {
      String text = response.statusCode() == 200 ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8);
      return new TestBroker.Response(response.statusCode(), response.headers().map(), text);
    }
  }

  // ---- MCP ----

  static Stream<Arguments> mcpRows() {
    List<Arguments> rows = new ArrayList<>();
    //                                               owner other svcOK svcNo ann  bob  admin
    addMcp(rows, "initialize",                        "ok", "ok", "ok", "ok", "ok", "ok", "ok");
    addMcp(rows, "tools/call ask_question (task)",    "ok", "ok", "ok", "refused", "ok", "ok", "ok");
    addMcp(rows, "tools/call get_question",           "ok", "refused", "ok", "refused", "ok", "refused", "ok");
    addMcp(rows, "tools/call cancel_question",        "ok", "refused", "ok", "refused", "ok", "refused", "ok");
    addMcp(rows, "tools/call list_pending_questions", "ok", "ok", "ok", "refused", "ok", "ok", "ok");
    addMcp(rows, "tasks/get",                         "ok", "refused", "ok", "refused", "ok", "refused", "ok");
    addMcp(rows, "tasks/cancel",                      "ok", "refused", "ok", "refused", "ok", "refused", "ok");
    addMcp(rows, "tasks/list",                        "ok", "ok", "ok", "refused", "ok", "ok", "ok");
    addMcp(rows, "resources/read",                    "ok", "refused", "ok", "refused", "ok", "refused", "ok");
    addMcp(rows, "resources/subscribe",               "ok", "refused", "ok", "refused", "ok", "refused", "ok");
    return rows.stream();
  }

  private static void addMcp(List<Arguments> rows, String call, String... authenticated) {
    Caller[] callers = Caller.values();
    for (int i = 0; i < callers.length; i++) {
      rows.add(Arguments.of(call, callers[i], i < authenticated.length ? authenticated[i] : "401"));
    }
  }

  @ParameterizedTest(name = "{0} by {1} -> {2}")
  @MethodSource("mcpRows")
  void mcpCall(String call, Caller caller, String expected) throws Exception {
    String id = question();
    String before = state();
    McpTestClient client = new McpTestClient(broker.mcp).withToken(tokenOf(caller));

    McpTestClient.Reply reply;
    if (call.equals("initialize")) {
      reply = client.call("initialize", new JsonObject().put("protocolVersion", "2025-11-25")
          .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "matrix")));
    } else if (expected.equals("401")) {
      reply = client.call("tools/list", null);
    } else {
      client.initialize();
      reply = client.send(client.post(client.message(method(call), params(call, id)).encode())
          .header("X-Ark-Agent", caller.actingFor == null ? "" : caller.actingFor).build());
    }

    String outcome = reply.status() == 401 ? "401" : reply.json() != null && reply.error() == null
        && !reply.result().getBoolean("isError", false) ? "ok" : "refused";
    assertThat(outcome).as(call + " by " + caller + ": " + reply.json()).isEqualTo(expected);
    if (!outcome.equals("ok")) {
      assertThat(state()).as("a refusal changes nothing").isEqualTo(before);
    }
    if (outcome.equals("401")) {
      assertThat(reply.header("WWW-Authenticate")).contains("resource_metadata=");
    }
    if (call.equals("tasks/list") && outcome.equals("ok")) {
      boolean sees = Stream.of(Caller.OWNER_AGENT, Caller.SERVICE_FOR_ALLOWED).anyMatch(caller::equals);
      assertThat(allTasks(client, caller, reply.result()).contains(id))
          .as("whether " + caller + " lists the task as its own").isEqualTo(sees);
    }
  }

  /** The task ids of every page of a tasks/list, starting from its first page. */
  private static List<String> allTasks(McpTestClient client, Caller caller, JsonObject firstPage) throws Exception {
    List<String> ids = new ArrayList<>();
    JsonObject page = firstPage;
    while (true) {
      page.getJsonArray("tasks").forEach(task -> ids.add(((JsonObject) task).getString("taskId")));
      String cursor = page.getString("nextCursor");
      if (cursor == null) {
        return ids;
      }
      page = client.send(client.post(client.message("tasks/list", new JsonObject().put("cursor", cursor)).encode())
          .header("X-Ark-Agent", caller.actingFor == null ? "" : caller.actingFor).build()).result();
    }
  }

  private static String method(String call) {
    return call.startsWith("tools/call") ? "tools/call" : call;
  }

  private static JsonObject params(String call, String id) {
    return switch (call) {
      case "tools/call ask_question (task)" -> new JsonObject().put("name", "ask_question").put("task", new JsonObject())
          .put("arguments", new JsonObject().put("recipient", HUMAN_NAME).put("content", "From MCP?"));
      case "tools/call get_question" -> tool("get_question", new JsonObject().put("questionId", id));
      case "tools/call cancel_question" -> tool("cancel_question", new JsonObject().put("questionId", id));
      case "tools/call list_pending_questions" -> tool("list_pending_questions", new JsonObject());
      case "tasks/get", "tasks/cancel" -> new JsonObject().put("taskId", id);
      case "tasks/list" -> new JsonObject();
      case "resources/read", "resources/subscribe" -> new JsonObject().put("uri", "ark://questions/" + id);
      default -> throw new IllegalArgumentException(call);
    };
  }

  private static JsonObject tool(String name, JsonObject arguments) {
    return new JsonObject().put("name", name).put("arguments", arguments);
  }

  // ---- the question and the state ----

  /** A fresh question the agent asks of ann. */
  private static String question() throws Exception {
    TestBroker.Response created = broker.as(AGENT).post("/questions", new JsonObject().put("recipient", HUMAN_NAME)
        .put("content", "Merge " + UUID.randomUUID() + "?").encode());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    return created.json().getString("id");
  }

  /**
   * Where the question log stands: every change to any question (created, answered, cancelled, delivered) moves it,
   * so an unchanged position means a refusal changed nothing.
   */
  private static String state() throws Exception {
    return broker.as(Identities.ADMIN).get("/questions?limit=1").json().getString("resourceVersion");
  }
}
