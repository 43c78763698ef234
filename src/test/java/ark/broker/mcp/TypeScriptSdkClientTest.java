package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.NodeDriven;
import ark.broker.testing.NodeScript;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** The official MCP TypeScript SDK client (npm @modelcontextprotocol/sdk) against the broker. */
@NodeDriven
class TypeScriptSdkClientTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(
      new JsonObject().put("mcp", new JsonObject().put("taskPollIntervalMillis", 100)), started -> broker = started);

  private static JsonObject scenario(String name) throws Exception {
    NodeScript.Run run = NodeScript.run(90, "sdk-client.mjs", broker.mcp.toString(), broker.base.toString(), name);
    assertThat(run.exitCode()).as(run.stderr()).isZero();
    return new JsonObject(run.lastLine());
  }

  @Test
  void aTaskAnsweredOverRestReturnsTheAnswerThroughTasksResult() throws Exception {
    JsonObject seen = scenario("task");

    assertThat(seen.getString("taskSupport")).isEqualTo("optional");
    assertThat(seen.getJsonArray("statuses")).startsWith("working").endsWith("completed");
    for (String field : new String[] {"result", "viaTasksResult"}) {
      JsonObject result = seen.getJsonObject(field);
      assertThat(result.getBoolean("isError")).isFalse();
      assertThat(result.getJsonObject("structuredContent").getString("response")).isEqualTo("yes");
      assertThat(result.getJsonObject("structuredContent").getString("answeredBy")).isEqualTo("ark://users/reviewer");
      assertThat(result.getJsonObject("_meta").getJsonObject("io.modelcontextprotocol/related-task").getString("taskId"))
          .isEqualTo(seen.getString("taskId"));
    }
  }

  @Test
  void aPlainCallStreamsProgressAndReturnsTheAnswer() throws Exception {
    JsonObject seen = scenario("plain");

    JsonArray progress = seen.getJsonArray("progress");
    assertThat(progress).isNotEmpty();
    assertThat(progress.getJsonObject(0).getString("message")).startsWith("Waiting for an answer from ark://users/sdk-");
    assertThat(seen.getJsonObject("result").getJsonObject("structuredContent").getString("response")).isEqualTo("no");
    assertThat(seen.getJsonObject("result").getBoolean("isError")).isFalse();
  }

  @Test
  void aPlainCallWithTheSdksDefaultsGetsThePendingQuestionBeforeItsTimeoutAndCollectsTheAnswer() throws Exception {
    JsonObject seen = scenario("defaults");

    JsonObject pending = seen.getJsonObject("pending");
    assertThat(pending.getBoolean("isError")).isFalse();
    assertThat(pending.getJsonObject("structuredContent").getString("status")).isEqualTo("pending");
    String questionId = pending.getJsonObject("structuredContent").getString("questionId");
    assertThat(seen.getLong("waitedMs")).as("the broker's default wait, within the SDK's 60 s").isBetween(15_000L, 59_000L);
    assertThat(seen.getJsonObject("followUp")).isEqualTo(new JsonObject().put("questionId", questionId).put("waitSeconds", 15));
    JsonObject collected = seen.getJsonObject("collected").getJsonObject("structuredContent");
    assertThat(collected.getString("status")).isEqualTo("answered");
    assertThat(collected.getString("response")).isEqualTo("yes");
  }

  @Test
  void typedAnswersAndAPendingResultPassTheSdksOutputSchemaCheck() throws Exception {
    JsonObject seen = scenario("typed");

    assertThat(seen.getJsonObject("form").getJsonObject("structuredContent").getJsonObject("answer"))
        .isEqualTo(new JsonObject().put("replicas", 4).put("env", "prod"));
    assertThat(seen.getJsonObject("pending").getBoolean("isError")).isFalse();
    assertThat(seen.getJsonObject("pending").getJsonObject("structuredContent").getString("status")).isEqualTo("pending");
    JsonObject decision = seen.getJsonObject("collected").getJsonObject("structuredContent").getJsonObject("decision");
    assertThat(decision.getString("action")).isEqualTo("approved");
    assertThat(decision.getString("reason")).isEqualTo("merged long ago");
  }

  @Test
  void theSameToolCallAskedAgainReturnsTheSameTask() throws Exception {
    JsonObject seen = scenario("replay");

    assertThat(seen.getString("second")).isEqualTo(seen.getString("first"));
    assertThat(seen.getInteger("questions")).isEqualTo(1);
  }

  @Test
  void cancellingATaskWithdrawsTheQuestion() throws Exception {
    JsonObject seen = scenario("cancel");

    assertThat(seen.getJsonObject("cancelled").getString("status")).isEqualTo("cancelled");
    assertThat(seen.getJsonObject("task").getString("status")).isEqualTo("cancelled");
    assertThat(seen.getString("questionStatus")).isEqualTo("cancelled");
    assertThat(seen.getJsonObject("result").getBoolean("isError")).isTrue();
    assertThat(seen.getJsonObject("cancelAgain").getInteger("code")).isEqualTo(-32602);
    assertThat(seen.getJsonArray("listed")).contains(seen.getJsonObject("task").getString("taskId"));
  }

  @Test
  void aSubscriptionGetsItsUpdate() throws Exception {
    JsonObject seen = scenario("subscribe");

    assertThat(seen.getJsonObject("notification").getString("uri")).isEqualTo(seen.getString("uri"));
    assertThat(seen.getJsonObject("read").getString("status")).isEqualTo("answered");
  }
}
