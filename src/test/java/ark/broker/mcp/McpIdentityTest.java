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
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MCP endpoint with authentication on: the 401 that sends clients to the metadata, sessions bound to the
 * principal that opened them, tasks, tools and resources that show and touch only the caller's own questions,
 * and a service acting only for the agents it may act for. Every refusal is checked to have changed nothing.
 */
class McpIdentityTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = BrokerExtension.withIdentities(started -> broker = started);

  private static McpTestClient session(String token) throws Exception {
    return new McpTestClient(broker.mcp).withToken(token).initialize();
  }

  /** A client of {@code token} that uses {@code owner}'s session id. */
  private static McpTestClient intruder(String token, McpTestClient owner) {
    McpTestClient intruder = new McpTestClient(broker.mcp).withToken(token);
    intruder.sessionId = owner.sessionId;
    return intruder;
  }

  private static JsonObject ask(String recipient) {
    return new JsonObject().put("recipient", recipient).put("content", "Ship it?");
  }

  private static JsonObject askCall(JsonObject arguments) {
    return new JsonObject().put("name", "ask_question").put("arguments", arguments).put("task", new JsonObject());
  }

  /** Asks as a task and returns the task (the question) id. */
  private static String askAsTask(McpTestClient client, JsonObject arguments) throws Exception {
    Reply reply = client.call("tools/call", askCall(arguments));
    assertThat(reply.response().containsKey("result")).as(reply.response().encode()).isTrue();
    return reply.result().getJsonObject("task").getString("taskId");
  }

  private static JsonObject tool(McpTestClient client, String name, JsonObject arguments) throws Exception {
    Reply reply = client.call("tools/call", new JsonObject().put("name", name).put("arguments", arguments));
    assertThat(reply.response().containsKey("result")).as(reply.response().encode()).isTrue();
    return reply.result();
  }

  private static JsonObject asAdmin(String id) throws Exception {
    TestBroker.Response question = broker.as(ADMIN).get("/questions/" + id);
    assertThat(question.status()).as(question.body()).isEqualTo(200);
    return question.json();
  }

  private static List<JsonObject> questionsFor(String recipient) throws Exception {
    return broker.as(ADMIN).listAll("recipient=" + recipient);
  }

  private static String metadataUrl() {
    return "http://127.0.0.1:" + broker.mcp.getPort() + "/.well-known/oauth-protected-resource/mcp";
  }

  private static void assertJsonRpcError(Reply reply) {
    assertThat(reply.json()).as("a JSON-RPC error body").isNotNull();
    assertThat(reply.json().getString("jsonrpc")).isEqualTo("2.0");
    assertThat(reply.json().getJsonObject("error").getInteger("code")).isNotNull();
  }

  @Test
  void withoutATokenTheClientIsSentToTheMetadataWhichNamesTheMcpUrl() throws Exception {
    Reply refused = new McpTestClient(broker.mcp).call("initialize", new JsonObject()
        .put("protocolVersion", "2025-11-25").put("capabilities", new JsonObject())
        .put("clientInfo", new JsonObject().put("name", "anonymous").put("version", "1")));

    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.header("WWW-Authenticate")).isEqualTo("Bearer resource_metadata=\"" + metadataUrl() + "\"");
    assertJsonRpcError(refused);
    assertThat(refused.json().getJsonObject("error").getString("message")).startsWith("Unauthorized");
    String mcpRoot = "http://127.0.0.1:" + broker.mcp.getPort();
    for (String url : List.of(metadataUrl(), mcpRoot + "/.well-known/oauth-protected-resource")) {
      TestBroker.Response metadata = broker.send(HttpRequest.newBuilder(java.net.URI.create(url)).GET());
      assertThat(metadata.status()).as(url).isEqualTo(200);
      assertThat(metadata.json().getString("resource")).as(url).isEqualTo(broker.mcp.toString());
      assertThat(metadata.json().getJsonArray("bearer_methods_supported")).containsExactly("header");
    }
  }

  @Test
  void aBadTokenIs401InvalidToken() throws Exception {
    Reply refused = new McpTestClient(broker.mcp).withToken("not-a-token").call("ping", null);

    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.header("WWW-Authenticate")).startsWith("Bearer resource_metadata=\"" + metadataUrl() + "\", ")
        .contains("error=\"invalid_token\"");
    assertJsonRpcError(refused);
  }

  @Test
  void aSessionIsUnknownToEveryOtherPrincipalAndStaysItsOwners() throws Exception {
    McpTestClient owner = session(AGENT);
    String eventId = owner.cutAfterFirstEvent(owner.message("tools/call", new JsonObject().put("name", "ask_question")
        .put("arguments", ask(TestBroker.someone()))));
    owner.call("resources/subscribe", new JsonObject().put("uri", "ark://questions/pending"));

    for (String other : List.of(OTHER_AGENT, SERVICE, HUMAN, ADMIN)) {
      McpTestClient intruder = intruder(other, owner);
      Reply post = intruder.call("tools/list", null);
      Reply unsubscribe = intruder.call("resources/unsubscribe", new JsonObject().put("uri", "ark://questions/pending"));
      var standalone = intruder.get(null);
      var resumed = intruder.get(eventId);
      Reply delete = intruder.send(intruder.withSession(HttpRequest.newBuilder(broker.mcp).DELETE()).build());

      assertThat(post.status()).as(other).isEqualTo(404);
      assertJsonRpcError(post);
      assertThat(post.json().getJsonObject("error").getInteger("code")).isEqualTo(-32001);
      assertThat(unsubscribe.status()).isEqualTo(404);
      assertThat(standalone.status).as("standalone GET of " + other).isEqualTo(404);
      assertThat(resumed.status).as("resuming GET of " + other).isEqualTo(404);
      assertThat(delete.status()).as("DELETE of " + other).isEqualTo(404);
      standalone.close();
      resumed.close();
    }

    assertThat(owner.call("ping", null).status()).as("the session still works for its owner").isEqualTo(200);
    try (SseStream stream = owner.get(null)) {
      assertThat(stream.status).as("its standalone stream was never taken").isEqualTo(200);
      broker.as(AGENT).post("/questions", ask(TestBroker.someone()).encode());
      assertThat(updatedUri(stream)).as("its subscription was not removed").isEqualTo("ark://questions/pending");
    }
  }

  /** The uri of the next {@code notifications/resources/updated} on a standalone stream. */
  private static String updatedUri(SseStream stream) throws Exception {
    while (true) {
      SseStream.SseEvent event = stream.next(10, TimeUnit.SECONDS);
      if (event == null || event.event().equals("end-of-stream")) {
        throw new AssertionError("no resources/updated on the stream");
      }
      if (event.data() != null && !event.data().isBlank()
          && "notifications/resources/updated".equals(event.json().getString("method"))) {
        return event.json().getJsonObject("params").getString("uri");
      }
    }
  }

  @Test
  void anotherAgentsTaskIsNotFoundAndStaysAsItWas() throws Exception {
    McpTestClient owner = session(AGENT);
    McpTestClient other = session(OTHER_AGENT);
    String taskId = askAsTask(owner, ask(HUMAN_NAME));

    for (String method : List.of("tasks/get", "tasks/result", "tasks/cancel")) {
      JsonObject response = other.call(method, new JsonObject().put("taskId", taskId)).response();
      assertThat(response.getJsonObject("error")).as(method + ": " + response.encode()).isNotNull();
      assertThat(response.getJsonObject("error").getInteger("code")).isEqualTo(-32602);
      assertThat(response.getJsonObject("error").getString("message")).contains("not found");
    }
    JsonArray othersTasks = other.call("tasks/list", new JsonObject()).result().getJsonArray("tasks");

    assertThat(othersTasks.stream().map(t -> ((JsonObject) t).getString("taskId"))).doesNotContain(taskId);
    assertThat(owner.call("tasks/get", new JsonObject().put("taskId", taskId)).result().getString("status"))
        .isEqualTo("working");
    assertThat(owner.call("tasks/list", new JsonObject()).result().getJsonArray("tasks").stream()
        .map(t -> ((JsonObject) t).getString("taskId"))).contains(taskId);
    assertThat(asAdmin(taskId).getString("status")).isEqualTo("pending");
  }

  @Test
  void followUpToolsAndResourcesShowAndTouchOnlyTheCallersOwn() throws Exception {
    McpTestClient owner = session(AGENT);
    McpTestClient other = session(OTHER_AGENT);
    String mine = askAsTask(owner, ask(HUMAN_NAME));
    String theirs = askAsTask(other, ask(HUMAN_NAME));

    JsonArray pending = tool(other, "list_pending_questions", new JsonObject()).getJsonObject("structuredContent")
        .getJsonArray("questions");
    JsonObject got = tool(other, "get_question", new JsonObject().put("questionId", mine));
    JsonObject cancelled = tool(other, "cancel_question", new JsonObject().put("questionId", mine));
    JsonObject pendingResource = new JsonObject(other.call("resources/read", new JsonObject()
        .put("uri", "ark://questions/pending")).result().getJsonArray("contents").getJsonObject(0).getString("text"));
    JsonObject read = other.call("resources/read", new JsonObject().put("uri", "ark://questions/" + mine)).response();
    JsonObject subscribed = other.call("resources/subscribe", new JsonObject().put("uri", "ark://questions/" + mine))
        .response();

    assertThat(ids(pending)).contains(theirs).doesNotContain(mine);
    assertThat(got.getBoolean("isError")).isTrue();
    assertThat(cancelled.getBoolean("isError")).isTrue();
    assertThat(ids(pendingResource.getJsonArray("questions"))).contains(theirs).doesNotContain(mine);
    assertThat(read.getJsonObject("error").getInteger("code")).as(read.encode()).isEqualTo(-32002);
    assertThat(subscribed.getJsonObject("error").getInteger("code")).as(subscribed.encode()).isEqualTo(-32002);
    assertThat(other.call("resources/list", null).result().getJsonArray("resources").encode())
        .doesNotContain(mine);
    assertThat(asAdmin(mine).getString("status")).isEqualTo("pending");
    assertThat(tool(owner, "get_question", new JsonObject().put("questionId", mine))
        .getJsonObject("structuredContent").getString("status")).isEqualTo("pending");
  }

  @Test
  void theServiceActsForItsAgentsByMetaOrHeaderAndForNoOthers() throws Exception {
    McpTestClient service = session(SERVICE);
    String recipient = TestBroker.someone();
    String allowed = "ark://agents/team-a/x";

    Reply viaMeta = service.call("tools/call", askCall(ask(recipient))
        .put("_meta", new JsonObject().put("ark.mckinsey.com/agent", allowed)));
    Reply viaHeader = service.send(service.post(service.message("tools/call", askCall(ask(recipient))).encode())
        .header("X-Ark-Agent", allowed).build());
    Reply forbidden = service.call("tools/call", askCall(ask(recipient))
        .put("_meta", new JsonObject().put("ark.mckinsey.com/agent", "ark://agents/team-b/x")));
    Reply forbiddenByHeader = service.send(service.post(service.message("tools/call", new JsonObject()
        .put("name", "ask_question").put("arguments", ask(recipient))).encode())
        .header("X-Ark-Agent", "ark://agents/team-b/x").build());

    for (Reply created : List.of(viaMeta, viaHeader)) {
      String id = created.result().getJsonObject("task").getString("taskId");
      assertThat(asAdmin(id).getString("sender")).isEqualTo(allowed);
    }
    for (Reply refused : List.of(forbidden, forbiddenByHeader)) {
      JsonObject error = refused.response().getJsonObject("error");
      assertThat(error).as(refused.response().encode()).isNotNull();
      assertThat(error.getString("message")).startsWith("Forbidden").contains("team-b/x");
      assertThat(error.getJsonObject("data").getInteger("status")).isEqualTo(403);
    }
    assertThat(questionsFor(recipient)).hasSize(2).allMatch(q -> q.getString("sender").equals(allowed));
  }

  @Test
  void theHistoryRecordsWhoAskedOverMcpAndFromWhere() throws Exception {
    McpTestClient service = session(SERVICE);
    String id = askAsTask(service, ask(TestBroker.someone()).put("sender", "ark://agents/team-a/x"));

    JsonObject by = broker.as(ADMIN).get("/questions/" + id + "/events").json().getJsonArray("items").getJsonObject(0)
        .getJsonObject("by");

    assertThat(by.getString("principal")).isEqualTo(SERVICE_NAME);
    assertThat(by.getString("actingFor")).isEqualTo("ark://agents/team-a/x");
    assertThat(by.getString("method")).isEqualTo("token");
    assertThat(by.getString("address")).isEqualTo("127.0.0.1");
    assertThat(by.getString("userAgent")).startsWith("Java-http-client");
  }

  /** Documented in docs/mcp.md: without an agent named, a service is a caller like any other, as itself. */
  @Test
  void aServiceNamingNoAgentActsAsItself() throws Exception {
    McpTestClient service = session(SERVICE);
    String recipient = TestBroker.someone();
    String forAgent = askAsTask(service, ask(recipient).put("sender", "ark://agents/team-a/x"));

    String own = askAsTask(service, ask(recipient));
    JsonObject agentsTask = service.call("tasks/get", new JsonObject().put("taskId", forAgent)).response();
    JsonObject agentsTaskNamed = service.call("tasks/get", new JsonObject().put("taskId", forAgent)
        .put("_meta", new JsonObject().put("ark.mckinsey.com/agent", "ark://agents/team-a/x"))).response();
    List<String> listed = service.call("tasks/list", new JsonObject()).result().getJsonArray("tasks").stream()
        .map(t -> ((JsonObject) t).getString("taskId")).toList();

    assertThat(asAdmin(own).getString("sender")).isEqualTo(SERVICE_NAME);
    assertThat(agentsTask.getJsonObject("error")).as("its agents' tasks are theirs, not the service's").isNotNull();
    assertThat(agentsTaskNamed.getJsonObject("result").getString("status")).isEqualTo("working");
    assertThat(listed).contains(own).doesNotContain(forAgent);
  }

  @Test
  void anAgentNamingAnotherAgentAsSenderIsRefused() throws Exception {
    McpTestClient agent = session(AGENT);
    String recipient = TestBroker.someone();

    JsonObject asTask = agent.call("tools/call", askCall(ask(recipient).put("sender", OTHER_AGENT_NAME))).response();
    JsonObject plain = agent.call("tools/call", new JsonObject().put("name", "ask_question")
        .put("arguments", ask(recipient).put("sender", OTHER_AGENT_NAME))).response();
    JsonObject viaMeta = agent.call("tools/call", askCall(ask(recipient))
        .put("_meta", new JsonObject().put("ark.mckinsey.com/agent", OTHER_AGENT_NAME))).response();

    for (JsonObject refused : List.of(asTask, plain, viaMeta)) {
      assertThat(refused.getJsonObject("error")).as(refused.encode()).isNotNull();
      assertThat(refused.getJsonObject("error").getJsonObject("data").getInteger("status")).isEqualTo(403);
    }
    assertThat(questionsFor(recipient)).isEmpty();
    assertThat(askAsTask(agent, ask(recipient).put("sender", AGENT_NAME))).isNotNull();
  }

  @Test
  void theSameToolCallOfTwoAgentsIsTwoQuestionsAndOfOneAgentOne() throws Exception {
    JsonObject meta = new JsonObject()
        .put("ark.mckinsey.com/query", new JsonObject().put("namespace", "default").put("name", "q-" + UUID.randomUUID()))
        .put("ark.mckinsey.com/tool-call-id", "call_1");
    String recipient = TestBroker.someone();
    JsonObject call = askCall(ask(recipient)).put("_meta", meta);

    String first = session(AGENT).call("tools/call", call.copy()).result().getJsonObject("task").getString("taskId");
    String again = session(AGENT).call("tools/call", call.copy()).result().getJsonObject("task").getString("taskId");
    String others = session(OTHER_AGENT).call("tools/call", call.copy()).result().getJsonObject("task").getString("taskId");

    assertThat(again).isEqualTo(first);
    assertThat(others).isNotEqualTo(first);
    assertThat(asAdmin(first).getString("sender")).isEqualTo(AGENT_NAME);
    assertThat(asAdmin(others).getString("sender")).isEqualTo(OTHER_AGENT_NAME);
    assertThat(questionsFor(recipient)).hasSize(2);
  }

  private static List<String> ids(JsonArray questions) {
    return questions.stream().map(q -> ((JsonObject) q).getString("id")).toList();
  }
}
