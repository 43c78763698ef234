package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Eventually;
import ark.broker.testing.NodeDriven;
import ark.broker.testing.NodeScript;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MCP Inspector's CLI (npm @modelcontextprotocol/inspector), as a user runs it against a broker with
 * authentication on: with {@code --header "Authorization: Bearer ..."} a plain {@code ask_question} waits for the
 * person's answer; without a token it fails.
 */
@NodeDriven
class McpInspectorCliTest {
  private static final String INSPECTOR = "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js";

  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = BrokerExtension.withIdentities(started -> broker = started);

  /** Its catalog, client config and OAuth state live under HOME: a directory of the test's own. */
  @TempDir
  Path home;

  /** {@code tools/call ask_question} for Ann, with {@code extra} options; stops short of the Inspector's 60 s timeout. */
  private CompletableFuture<NodeScript.Run> ask(String content, String... extra) {
    List<String> arguments = new ArrayList<>(List.of(INSPECTOR, "--cli", broker.mcp.toString(), "--transport", "http",
        "--method", "tools/call", "--tool-name", "ask_question",
        "--tool-arg", "recipient=" + HUMAN_NAME, "content=" + content,
        "--format", "json", "--stored-auth-only"));
    arguments.addAll(List.of(extra));
    return CompletableFuture.supplyAsync(() -> {
      try {
        return NodeScript.run(50, Map.of("HOME", home.toString()), arguments.toArray(String[]::new));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  @Test
  void withATokenAPlainAskQuestionReturnsTheAnswer() throws Exception {
    String content = "Inspector, may I deploy? " + java.util.UUID.randomUUID();
    CompletableFuture<NodeScript.Run> call = ask(content, "--header", "Authorization: Bearer " + AGENT);

    JsonObject question = Eventually.until("the Inspector's question is pending",
        () -> broker.as(HUMAN).listAll("status=pending").stream()
            .filter(q -> q.getString("content").equals(content)).findFirst().orElse(null),
        found -> found != null);
    TestBroker.Response answered = broker.as(HUMAN).patch("/questions/" + question.getString("id"),
        new JsonObject().put("response", "go ahead").encode());
    NodeScript.Run run = call.get(60, TimeUnit.SECONDS);

    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(question.getString("sender")).isEqualTo(AGENT_NAME);
    assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
    JsonObject result = new JsonObject(run.lastLine()).getJsonObject("result");
    assertThat(result.getBoolean("isError")).isFalse();
    assertThat(result.getJsonObject("structuredContent").getString("response")).isEqualTo("go ahead");
    assertThat(result.getJsonObject("structuredContent").getString("answeredBy")).isEqualTo(HUMAN_NAME);
  }

  @Test
  void withoutATokenItFails() throws Exception {
    String content = "Inspector without a token? " + java.util.UUID.randomUUID();

    NodeScript.Run run = ask(content).get(60, TimeUnit.SECONDS);

    assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isNotZero();
    JsonObject error = new JsonObject(run.stderr().strip()).getJsonObject("error");
    assertThat(error.getString("code")).isEqualTo("auth_required");
    assertThat(error.getString("message")).contains("Unauthorized: a bearer token is required");
    assertThat(broker.as(ADMIN).listAll("status=pending")).noneMatch(q -> q.getString("content").equals(content));
  }
}
