package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.NodeDriven;
import ark.broker.testing.NodeScript;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official MCP TypeScript SDK client (npm @modelcontextprotocol/sdk) against a broker with authentication
 * on: with a bearer token it asks and gets the recipient's answer; without one it is refused and told where the
 * metadata is.
 */
@NodeDriven
class TypeScriptSdkAuthTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = BrokerExtension.withIdentities(
      new JsonObject().put("mcp", new JsonObject().put("taskPollIntervalMillis", 100)), started -> broker = started);

  /** Runs a scenario as the agent, questions for Ann, who answers them over REST with her token. */
  private static JsonObject scenario(String name, Map<String, String> tokens) throws Exception {
    NodeScript.Run run = NodeScript.run(90, tokens, "sdk-client.mjs", broker.mcp.toString(), broker.base.toString(), name);
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    return new JsonObject(run.lastLine());
  }

  private static Map<String, String> agentAskingAnn() {
    return Map.of("ARK_MCP_TOKEN", AGENT, "ARK_REST_TOKEN", HUMAN, "ARK_RECIPIENT", HUMAN_NAME);
  }

  @Test
  void withATokenATaskIsAnsweredByTheRecipient() throws Exception {
    JsonObject seen = scenario("task", agentAskingAnn());

    assertThat(seen.getJsonArray("statuses")).startsWith("working").endsWith("completed");
    for (String field : new String[] {"result", "viaTasksResult"}) {
      JsonObject answer = seen.getJsonObject(field).getJsonObject("structuredContent");
      assertThat(answer.getString("response")).isEqualTo("yes");
      assertThat(answer.getString("answeredBy")).isEqualTo(HUMAN_NAME);
    }
    assertThat(broker.as(AGENT).get("/questions/" + seen.getString("taskId")).json().getString("sender"))
        .isEqualTo(AGENT_NAME);
  }

  @Test
  void withATokenAPlainCallReturnsTheAnswer() throws Exception {
    JsonObject seen = scenario("plain", agentAskingAnn());

    JsonObject result = seen.getJsonObject("result");
    assertThat(result.getBoolean("isError")).isFalse();
    assertThat(result.getJsonObject("structuredContent").getString("response")).isEqualTo("no");
    assertThat(result.getJsonObject("structuredContent").getString("answeredBy")).isEqualTo(HUMAN_NAME);
  }

  @Test
  void withoutATokenTheSdkIsRefusedAndFindsTheMetadata() throws Exception {
    JsonObject seen = scenario("unauthorized", Map.of());
    String metadataUrl = "http://127.0.0.1:" + broker.mcp.getPort() + "/.well-known/oauth-protected-resource/mcp";

    assertThat(seen.containsKey("connected")).isFalse();
    assertThat(seen.getInteger("status")).isEqualTo(401);
    assertThat(seen.getString("resourceMetadataUrl")).isEqualTo(metadataUrl);
    assertThat(seen.getJsonObject("error").getBoolean("isStreamableHttpError")).isTrue();
    assertThat(seen.getJsonObject("error").getInteger("code")).isEqualTo(401);
    assertThat(seen.getJsonObject("error").getString("message")).contains("Unauthorized");
    JsonObject signIn = seen.getJsonObject("signIn");
    assertThat(signIn.getJsonObject("error").getBoolean("isUnauthorizedError")).as(signIn.encode()).isTrue();
    assertThat(signIn.getJsonObject("discovered").getString("resource"))
        .as("the SDK read the metadata the challenge named").isEqualTo(broker.mcp.toString());
  }
}
