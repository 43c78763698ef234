package ark.broker.auth;

import ark.broker.testing.LoopbackIssuer;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.McpTestClient.Reply;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code auth.oidc.requiredScopes} end to end, with tokens from a real OIDC server on loopback: a token lacking a
 * scope gets 403 {@code insufficient_scope} naming the scopes on REST and on MCP, and the metadata lists them.
 */
class RequiredScopesTest {
  private static final String AUDIENCE = "ark-broker";
  private static final String SCOPE = "questions:ask";

  @TempDir
  static Path dir;
  static LoopbackIssuer issuer;
  static TestBroker broker;

  @BeforeAll
  static void start() throws Exception {
    issuer = LoopbackIssuer.start();
    broker = TestBroker.start(dir.resolve("data"), new JsonObject().put("auth", new JsonObject().put("mode", "required")
        .put("oidc", issuer.oidcConfig(AUDIENCE).put("kindClaim", "ark_kind").put("requiredScopes", new JsonArray().add(SCOPE)))));
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
    issuer.close();
  }

  /** An agent's access token with {@code claims} besides its name and kind. */
  private static String agentToken(String name, Map<String, Object> claims) {
    Map<String, Object> all = new java.util.HashMap<>(claims);
    all.put("ark_kind", "agent");
    return issuer.token(name, AUDIENCE, all);
  }

  private static String challenge(String metadataUrl) {
    return "Bearer error=\"insufficient_scope\", scope=\"" + SCOPE + "\", resource_metadata=\"" + metadataUrl
        + "\", error_description=\"the token lacks the scope " + SCOPE + "\"";
  }

  @Test
  void aTokenWithTheScopeAsksOverMcpAndReadsOverRest() throws Exception {
    for (Map<String, Object> scopes : List.<Map<String, Object>>of(Map.of("scope", "openid " + SCOPE),
        Map.of("scp", List.of(SCOPE)))) {
      String token = agentToken("team-a/scoped", scopes);
      McpTestClient client = new McpTestClient(broker.mcp).withToken(token).initialize();

      Reply asked = client.call("tools/call", new JsonObject().put("name", "ask_question").put("task", new JsonObject())
          .put("arguments", new JsonObject().put("recipient", TestBroker.someone()).put("content", "Scoped?")));
      String id = asked.result().getJsonObject("task").getString("taskId");

      TestBroker.Response read = broker.as(token).get("/questions/" + id);
      assertThat(read.status()).as(read.body()).isEqualTo(200);
      assertThat(read.json().getString("sender")).isEqualTo("ark://agents/team-a/scoped");
    }
  }

  @Test
  void aTokenLackingTheScopeIs403InsufficientScopeOnMcpAndRest() throws Exception {
    String token = agentToken("team-a/unscoped", Map.of("scope", "openid"));

    Reply mcp = new McpTestClient(broker.mcp).withToken(token).call("initialize", new JsonObject()
        .put("protocolVersion", "2025-11-25").put("capabilities", new JsonObject())
        .put("clientInfo", new JsonObject().put("name", "unscoped").put("version", "1")));
    TestBroker.Response rest = broker.as(token).post("/questions",
        new JsonObject().put("recipient", TestBroker.someone()).put("content", "Unscoped?").encode());

    assertThat(mcp.status()).isEqualTo(403);
    assertThat(mcp.header("WWW-Authenticate"))
        .isEqualTo(challenge("http://127.0.0.1:" + broker.mcp.getPort() + "/.well-known/oauth-protected-resource/mcp"));
    assertThat(mcp.json().getJsonObject("error").getString("message")).startsWith("Forbidden");
    assertThat(rest.status()).isEqualTo(403);
    assertThat(rest.header("WWW-Authenticate"))
        .isEqualTo(challenge(broker.base + "/.well-known/oauth-protected-resource"));
    assertThat(broker.as(agentToken("team-a/unscoped", Map.of("scope", SCOPE))).listAll(""))
        .as("nothing was created").isEmpty();
  }

  @Test
  void theMetadataListsTheRequiredScopes() throws Exception {
    URI mcpMetadata = URI.create("http://127.0.0.1:" + broker.mcp.getPort() + "/.well-known/oauth-protected-resource/mcp");
    for (URI url : List.of(mcpMetadata, broker.base.resolve("/.well-known/oauth-protected-resource"))) {
      JsonObject metadata = broker.send(HttpRequest.newBuilder(url).GET()).json();

      assertThat(metadata.getJsonArray("scopes_supported")).as(url.toString()).containsExactly(SCOPE);
      assertThat(metadata.getJsonArray("authorization_servers")).containsExactly(issuer.issuer());
    }
  }
}
