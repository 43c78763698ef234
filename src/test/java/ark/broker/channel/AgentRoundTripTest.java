package ark.broker.channel;

import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.SseStream.SseEvent;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

import static ark.broker.channel.ChannelTesting.GITHUB_SECRET;
import static ark.broker.channel.ChannelTesting.JOHN_GITHUB;
import static ark.broker.channel.ChannelTesting.JOHN_SLACK;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole way round: an agent asks over MCP naming a channel, hears where the question was delivered,
 * a person answers in Slack or on GitHub, and the agent's call returns that answer.
 */
class AgentRoundTripTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir
  static Path dataDir;
  static FakeSlack slack;
  static FakeGitHub github;
  static TestBroker broker;

  @BeforeAll
  static void start() throws Exception {
    slack = FakeSlack.start();
    github = FakeGitHub.start();
    broker = TestBroker.start(dataDir, ChannelTesting.config(slack, github, null)
        .put("mcp", new JsonObject().put("progressIntervalSeconds", 1)));
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
    slack.close();
    github.close();
  }

  private static JsonObject askOver(McpTestClient client, String channel, String content) {
    return client.message("tools/call", new JsonObject()
        .put("name", "ask_question")
        .put("arguments", new JsonObject().put("recipient", "ark://users/john.doe").put("content", content)
            .put("options", new JsonArray().add("approve").add("reject")).put("channels", new JsonArray().add(channel)))
        .put("_meta", new JsonObject().put("progressToken", "progress-" + channel)));
  }

  /** Reads progress notifications until one says the question was delivered to {@code label}. */
  private static void awaitDeliveredNotice(SseStream stream, String label) throws Exception {
    for (SseEvent event = stream.next(); ; event = stream.next()) {
      assertThat(event.event()).isNotEqualTo("end-of-stream");
      if (!event.data().isBlank() && "notifications/progress".equals(event.json().getString("method"))
          && event.json().getJsonObject("params").getString("message").toLowerCase(Locale.ROOT)
              .contains("delivered to " + label.toLowerCase(Locale.ROOT))) {
        return;
      }
    }
  }

  private static JsonObject nextResult(SseStream stream) throws Exception {
    for (SseEvent event = stream.next(); ; event = stream.next()) {
      assertThat(event.event()).isNotEqualTo("end-of-stream");
      if (!event.data().isBlank() && event.json().containsKey("result")) {
        return event.json().getJsonObject("result").getJsonObject("structuredContent");
      }
    }
  }

  @Test
  void anAgentAsksForSlackAndItsCallReturnsTheAnswerClickedThere() throws Exception {
    McpTestClient agent = new McpTestClient(broker.mcp).initialize();

    try (SseStream call = agent.stream(askOver(agent, "slack:ops", "Approve the ops change?"))) {
      awaitDeliveredNotice(call, "Slack #ops");
      FakeService.Received posted = slack.await(r -> r.path().endsWith("/chat.postMessage")
          && r.body().contains("Approve the ops change?"), WAIT);
      JsonObject message = posted.json();
      JsonObject actions = message.getJsonArray("blocks").stream().map(JsonObject.class::cast)
          .filter(block -> "actions".equals(block.getString("type"))).findFirst().orElseThrow();
      String questionId = message.getJsonObject("metadata").getJsonObject("event_payload").getString("question_id");
      FakeSlack.Message shown = slack.messagesFor(questionId).get(0);
      JsonObject button = actions.getJsonArray("elements").getJsonObject(0);

      TestBroker.Response clicked = ChannelTesting.slack(broker, new JsonObject()
          .put("type", "block_actions")
          .put("user", new JsonObject().put("id", JOHN_SLACK))
          .put("container", new JsonObject().put("type", "message").put("channel_id", shown.channel()).put("message_ts", shown.ts()))
          .put("trigger_id", "trigger-1")
          .put("actions", new JsonArray().add(new JsonObject().put("type", "button").put("block_id", actions.getString("block_id"))
              .put("action_id", button.getString("action_id")).put("value", button.getString("value")))));

      assertThat(clicked.status()).isEqualTo(200);
      JsonObject result = nextResult(call);
      assertThat(result.getString("questionId")).isEqualTo(questionId);
      assertThat(result.getString("response")).isEqualTo("approve");
      assertThat(result.getString("answeredBy")).isEqualTo("ark://users/john.doe");
      slack.await(r -> r.path().endsWith("/chat.update") && r.body().contains(shown.ts()), WAIT);
    }
  }

  @Test
  void anAgentAsksOnAPullRequestAndItsCallReturnsTheAnswerCommentedThere() throws Exception {
    McpTestClient agent = new McpTestClient(broker.mcp).initialize();

    try (SseStream call = agent.stream(askOver(agent, "github:acme/app#314", "Merge this pull request?"))) {
      awaitDeliveredNotice(call, "GitHub acme/app#314");
      List<FakeGitHub.Comment> comments = github.commentsOn("acme/app#314");
      assertThat(comments).hasSize(1);

      TestBroker.Response commented = ChannelTesting.github(broker, "issue_comment", "delivery-314",
          ChannelTesting.issueComment("acme/app", 314, JOHN_GITHUB, "/answer reject\nThe migration is missing."), GITHUB_SECRET);

      assertThat(commented.status()).isEqualTo(200);
      JsonObject result = nextResult(call);
      assertThat(result.getString("response")).isEqualTo("reject");
      assertThat(result.getString("answeredBy")).isEqualTo("ark://users/john.doe");
      github.await(r -> r.method().equals("POST") && r.body().contains("outcome:answered"), WAIT);
    }
  }

  @Test
  void aCallResumedAfterItsQuestionWasDeliveredHearsWhereItWasDelivered() throws Exception {
    McpTestClient agent = new McpTestClient(broker.mcp).initialize();
    String resumeFrom = agent.cutAfterFirstEvent(askOver(agent, "github:acme/app#315", "Tag the release?"));
    Eventually.until("the question's delivery to GitHub recorded", () -> broker.listAll("recipient=ark://users/john.doe")
        .stream().filter(question -> question.getString("content").equals("Tag the release?")).toList(),
        asked -> asked.size() == 1 && ChannelTesting.delivery(asked.get(0), "github:acme/app#315") != null);

    try (SseStream resumed = agent.get(resumeFrom)) {
      awaitDeliveredNotice(resumed, "GitHub acme/app#315");
    }
  }
}
