package ark.broker.channel;

import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static ark.broker.channel.ChannelTesting.OPS;
import static ark.broker.channel.ChannelTesting.awaitQuestion;
import static ark.broker.channel.ChannelTesting.delivery;
import static org.assertj.core.api.Assertions.assertThat;

/** Delivery through a failing Slack, and across a crash between posting and recording the post. */
class DeliveryResilienceTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir
  Path dataDir;

  private static List<FakeService.Received> postsOf(FakeSlack slack, String questionId) {
    return slack.received("POST", "/api/chat.postMessage").stream().filter(r -> r.body().contains(questionId)).toList();
  }

  @Test
  void slackFailingAndRateLimitedGetsTheQuestionExactlyOnceAfterItRecoversWhileOtherChannelsDeliverAtOnce() throws Exception {
    try (FakeSlack slack = FakeSlack.start(); FakeGitHub github = FakeGitHub.start();
         FakeService receiver = new FakeService(request -> FakeService.Reply.json(200, new JsonObject()))) {
      slack.failPosts();
      try (TestBroker broker = TestBroker.start(dataDir, ChannelTesting.config(slack, github, receiver))) {
        String id = broker.ask("{'recipient':'ark://users/john.doe','content':'Roll back?','options':['yes','no'],"
            + "'channels':['slack:ops','github:acme/app#1','webhook']}").getString("id");

        slack.await(r -> r.path().endsWith("/chat.postMessage") && r.body().contains(id), WAIT);
        JsonObject others = awaitQuestion(broker, id, q -> delivery(q, "github:acme/app#1") != null && delivery(q, "webhook") != null);
        assertThat(delivery(others, "slack:ops")).isNull();
        assertThat(slack.messagesFor(id)).isEmpty();

        slack.failNextPosts(new FakeService.Reply(429, Map.of("Retry-After", "1", "Content-Type", "application/json"),
            "{\"ok\":false,\"error\":\"ratelimited\"}"));
        slack.recover();

        JsonObject delivered = awaitQuestion(broker, id, q -> delivery(q, "slack:ops") != null);
        List<FakeSlack.Message> messages = slack.messagesFor(id);
        assertThat(messages).hasSize(1);
        assertThat(delivery(delivered, "slack:ops").getString("ref")).isEqualTo(OPS + "/" + messages.get(0).ts());
        List<FakeService.Received> posts = postsOf(slack, id);
        FakeService.Received limited = slack.received("POST", "/api/chat.postMessage").stream()
            .filter(r -> r.body().contains(id)).skip(posts.size() - 2).findFirst().orElseThrow();
        FakeService.Received accepted = posts.get(posts.size() - 1);
        assertThat(Duration.between(limited.at(), accepted.at())).as("waited as Retry-After asked").isGreaterThanOrEqualTo(Duration.ofMillis(950));
        assertThat(slack.received("GET", "/api/conversations.history")).as("looked for a post a 500 may have made").isNotEmpty();
        assertThat(github.commentsOn("acme/app#1")).hasSize(1);
      }
    }
  }

  @Test
  void postsToOneSlackChannelAreSpacedByItsIntervalWhileAnotherChannelIsNotHeldUp() throws Exception {
    try (FakeSlack slack = FakeSlack.start()) {
      JsonObject config = ChannelTesting.config(slack, null, null);
      config.getJsonObject("channels").getJsonObject("slack").put("intervalMillis", 600);
      try (TestBroker broker = TestBroker.start(dataDir, config)) {
        List<String> ops = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          ops.add(broker.ask("{'recipient':'ark://users/john.doe','content':'Ops question " + i + "','channels':['slack:ops']}").getString("id"));
        }
        String dev = broker.ask("{'recipient':'ark://users/john.doe','content':'Dev question','channels':['slack:dev']}").getString("id");

        for (String id : ops) {
          awaitQuestion(broker, id, q -> delivery(q, "slack:ops") != null);
        }
        awaitQuestion(broker, dev, q -> delivery(q, "slack:dev") != null);

        List<Instant> opsPosts = ops.stream().map(id -> postsOf(slack, id).get(0).at()).sorted().toList();
        for (int i = 1; i < opsPosts.size(); i++) {
          assertThat(Duration.between(opsPosts.get(i - 1), opsPosts.get(i))).isGreaterThanOrEqualTo(Duration.ofMillis(580));
        }
        assertThat(postsOf(slack, dev).get(0).at()).as("#dev did not wait behind #ops").isBefore(opsPosts.get(2));
      }
    }
  }

  @Test
  void aBrokerKilledBetweenPostingAndRecordingFindsItsPostAfterRestartInsteadOfPostingAgain() throws Exception {
    try (FakeSlack slack = FakeSlack.start()) {
      JsonObject config = ChannelTesting.config(slack, null, null);
      slack.hold("chat.postMessage");
      String id;
      try (TestBroker first = TestBroker.start(dataDir, config)) {
        id = first.ask("{'recipient':'ark://users/john.doe','content':'Survive a crash?','channels':['slack']}").getString("id");
        slack.await(r -> r.path().endsWith("/chat.postMessage") && r.body().contains(id), WAIT);
        assertThat(slack.messagesFor(id)).hasSize(1);
      } finally {
        slack.release();
      }
      String posted = OPS + "/" + slack.messagesFor(id).get(0).ts();

      try (TestBroker second = TestBroker.start(dataDir, config)) {
        JsonObject question = awaitQuestion(second, id, q -> delivery(q, "slack") != null);

        assertThat(delivery(question, "slack").getString("ref")).isEqualTo(posted);
        assertThat(slack.messagesFor(id)).hasSize(1);
        assertThat(postsOf(slack, id)).hasSize(1);
        assertThat(slack.received("GET", "/api/conversations.history")).isNotEmpty();
      }
    }
  }
}
