package ark.broker.channel;

import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static ark.broker.channel.ChannelTesting.JOHN_SLACK;
import static ark.broker.channel.ChannelTesting.OPS;
import static ark.broker.channel.ChannelTesting.awaitQuestion;
import static ark.broker.channel.ChannelTesting.click;
import static ark.broker.channel.ChannelTesting.delivery;
import static ark.broker.channel.ChannelTesting.slack;
import static ark.broker.channel.ChannelTesting.submission;
import static org.assertj.core.api.Assertions.assertThat;

/** Questions posted to Slack and answered there, against a fake Slack Web API on loopback. */
class SlackChannelTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir
  static Path dataDir;
  static FakeSlack fake;
  static TestBroker broker;

  @BeforeAll
  static void start() throws Exception {
    fake = FakeSlack.start();
    JsonObject config = ChannelTesting.config(fake, null, null);
    config.getJsonObject("channels").put("onlyRecipientsMayAnswer", true).put("ackTimeoutMillis", 1500);
    broker = TestBroker.start(dataDir, config);
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
    fake.close();
  }

  private static FakeSlack.Message postedOnce(String questionId) throws Exception {
    JsonObject question = awaitQuestion(broker, questionId, q -> delivery(q, q.getJsonArray("channels").getString(0)) != null);
    List<FakeSlack.Message> messages = fake.messagesFor(questionId);
    assertThat(messages).hasSize(1);
    FakeSlack.Message message = messages.get(0);
    JsonObject record = delivery(question, question.getJsonArray("channels").getString(0));
    assertThat(record.getString("ref")).isEqualTo(message.channel() + "/" + message.ts());
    return message;
  }

  private static String texts(JsonObject posted) {
    return posted.getJsonArray("blocks").encode();
  }

  @Test
  void aQuestionIsPostedOnceWithItsContentContextPriorityAskerAndOneButtonPerOption() throws Exception {
    JsonObject question = broker.ask("{'recipient':'ark://users/john.doe','sender':'ark://agents/reviewer','channels':['slack:ops'],"
        + "'content':'Merge PR #42 <now>?','context':'CI is green & reviewed','options':['yes','no'],'priority':'high'}");

    FakeSlack.Message message = postedOnce(question.getString("id"));

    assertThat(message.channel()).isEqualTo(OPS);
    JsonArray blocks = message.posted().getJsonArray("blocks");
    assertThat(blocks.getJsonObject(0).getJsonObject("text").getString("text")).isEqualTo("Merge PR #42 &lt;now&gt;?");
    assertThat(blocks.getJsonObject(1).getJsonArray("elements").getJsonObject(0).getString("text"))
        .isEqualTo("CI is green &amp; reviewed");
    String about = blocks.getJsonObject(2).getJsonArray("elements").getJsonObject(0).getString("text");
    assertThat(about).contains("*Priority:* high").contains("*Asked by:* ark://agents/reviewer").contains("*For:* <@" + JOHN_SLACK + ">");
    JsonArray buttons = blocks.getJsonObject(3).getJsonArray("elements");
    assertThat(buttons.stream().map(b -> ((JsonObject) b).getJsonObject("text").getString("text"))).containsExactly("yes", "no");
    assertThat(message.metadata().getString("event_type")).isEqualTo("ark_question");
    assertThat(message.questionId()).isEqualTo(question.getString("id"));
    JsonObject record = delivery(broker.get("/questions/" + question.getString("id")).json(), "slack:ops");
    assertThat(record.getString("label")).isEqualTo("Slack #ops");
  }

  @Test
  void aButtonClickAnswersTheQuestionAndTheMessageThenShowsTheAnswerWithoutButtons() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john.doe','channels':['slack'],'content':'Deploy?','options':['Ship it','Wait']}")
        .getString("id");
    FakeSlack.Message message = postedOnce(id);

    Response clicked = slack(broker, click(message, "Ship it", JOHN_SLACK));

    assertThat(clicked.status()).isEqualTo(200);
    JsonObject answered = broker.get("/questions/" + id).json();
    assertThat(answered.getString("status")).isEqualTo("answered");
    assertThat(answered.getString("response")).isEqualTo("Ship it");
    assertThat(answered.getString("answeredBy")).isEqualTo("ark://users/john.doe");
    FakeService.Received update = fake.await(r -> r.path().endsWith("/chat.update") && r.json().getString("ts").equals(message.ts()), WAIT);
    assertThat(update.json().getString("channel")).isEqualTo(OPS);
    assertThat(texts(update.json())).contains("*Answered:* Ship it").contains("<@" + JOHN_SLACK + ">").doesNotContain("\"actions\"");
    JsonObject shown = awaitQuestion(broker, id, q -> delivery(q, "slack").getString("outcome") != null);
    assertThat(delivery(shown, "slack").getString("outcome")).isEqualTo("answered");
  }

  @Test
  void slackDmSendsTheQuestionToThePersonsDirectMessagesWhereAClickAnswersIt() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john.doe','channels':['slack:dm'],'content':'Rotate the keys?','options':['yes','no']}")
        .getString("id");

    JsonObject question = awaitQuestion(broker, id, q -> delivery(q, "slack:dm:john.doe") != null);

    FakeService.Received open = fake.await(r -> r.path().endsWith("/conversations.open"), WAIT);
    assertThat(open.json().getString("users")).isEqualTo(JOHN_SLACK);
    List<FakeSlack.Message> messages = fake.messagesFor(id);
    assertThat(messages).hasSize(1);
    FakeSlack.Message message = messages.get(0);
    assertThat(message.channel()).isEqualTo("D" + JOHN_SLACK);
    JsonObject record = delivery(question, "slack:dm:john.doe");
    assertThat(record.getString("ref")).isEqualTo(message.channel() + "/" + message.ts());
    assertThat(record.getString("label")).isEqualTo("Slack DM to john.doe");

    Response clicked = slack(broker, click(message, "yes", JOHN_SLACK));

    assertThat(clicked.status()).as(clicked.body()).isEqualTo(200);
    JsonObject answered = broker.get("/questions/" + id).json();
    assertThat(answered.getString("response")).isEqualTo("yes");
    assertThat(answered.getString("answeredBy")).isEqualTo("ark://users/john.doe");
    FakeService.Received update = fake.await(r -> r.path().endsWith("/chat.update") && r.json().getString("ts").equals(message.ts()), WAIT);
    assertThat(update.json().getString("channel")).isEqualTo("D" + JOHN_SLACK);
  }

  @Test
  void aFreeTextAnswerGoesThroughTheFormThatTheAnswerButtonOpens() throws Exception {
    String id = broker.ask("{'recipient':'ark://teams/ops','channels':['slack:dev'],'content':'When should we release?'}").getString("id");
    FakeSlack.Message message = postedOnce(id);
    assertThat(message.channel()).isEqualTo("C0DEV");

    Response opened = slack(broker, click(message, id, JOHN_SLACK));

    assertThat(opened.status()).isEqualTo(200);
    FakeService.Received open = fake.await(r -> r.path().endsWith("/views.open") && r.body().contains(id), WAIT);
    JsonObject view = open.json().getJsonObject("view");
    assertThat(open.json().getString("trigger_id")).isEqualTo("1234.5678.trigger");
    assertThat(new JsonObject(view.getString("private_metadata")))
        .isEqualTo(new JsonObject().put("question", id).put("message", message.channel() + "/" + message.ts()));

    Response submitted = slack(broker, submission(view, JOHN_SLACK, "Monday, after the freeze"));

    assertThat(submitted.status()).isEqualTo(200);
    assertThat(submitted.body()).isEmpty();
    JsonObject answered = broker.get("/questions/" + id).json();
    assertThat(answered.getString("response")).isEqualTo("Monday, after the freeze");
    assertThat(answered.getString("answeredBy")).isEqualTo("ark://users/john.doe");
    fake.await(r -> r.path().endsWith("/chat.update") && r.json().getString("ts").equals(message.ts()), WAIT);
  }

  @Test
  void aClickIsAcknowledgedInTimeEvenWhenSlackIsSlowToOpenTheForm() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john.doe','channels':['slack'],'content':'Slow Slack?'}").getString("id");
    FakeSlack.Message message = postedOnce(id);
    fake.hold("views.open");
    try {
      Response opened = slack(broker, click(message, id, JOHN_SLACK));

      assertThat(opened.status()).as("acknowledged while views.open has not replied").isEqualTo(202);
      assertThat(opened.json().getString("status")).isEqualTo("accepted");
    } finally {
      fake.release();
    }
  }

  @Test
  void cancelledAndExpiredQuestionsAreShownAsSuchOnTheirMessages() throws Exception {
    String cancelled = broker.ask("{'recipient':'ark://users/john.doe','channels':['slack'],'content':'Cancel me'}").getString("id");
    String expiring = broker.ask("{'recipient':'ark://users/john.doe','channels':['slack'],'content':'Let me expire','ttlSeconds':1}")
        .getString("id");
    FakeSlack.Message first = postedOnce(cancelled);
    broker.delete("/questions/" + cancelled);

    FakeService.Received cancelUpdate = fake.await(r -> r.path().endsWith("/chat.update") && r.json().getString("ts").equals(first.ts()), WAIT);
    assertThat(texts(cancelUpdate.json())).contains("*Cancelled:*").doesNotContain("\"actions\"");
    JsonObject expired = awaitQuestion(broker, expiring, q -> q.getString("status").equals("expired")
        && delivery(q, "slack") != null && "expired".equals(delivery(q, "slack").getString("outcome")));
    String ts = delivery(expired, "slack").getString("ref").split("/")[1];
    FakeService.Received expireUpdate = fake.await(r -> r.path().endsWith("/chat.update") && r.json().getString("ts").equals(ts), WAIT);
    assertThat(texts(expireUpdate.json())).contains("*Expired:*");
  }

  @Test
  void unsignedWronglySignedAndStaleRequestsAreRefusedAndChangeNothing() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john.doe','channels':['slack'],'content':'Signed?','options':['yes','no']}")
        .getString("id");
    JsonObject click = click(postedOnce(id), "yes", JOHN_SLACK);
    long now = Instant.now().getEpochSecond();

    Response unsigned = slack(broker, click, now, null);
    Response wrongKey = slack(broker, click, now, "not-the-signing-secret");
    Response stale = slack(broker, click, now - 6 * 60, ChannelTesting.SLACK_SECRET);
    Response future = slack(broker, click, now + 6 * 60, ChannelTesting.SLACK_SECRET);

    assertThat(List.of(unsigned.status(), wrongKey.status(), stale.status(), future.status())).containsOnly(401);
    assertThat(unsigned.error().getString("message")).contains("not signed");
    assertThat(stale.error().getString("message")).contains("300 seconds");
    assertThat(wrongKey.body()).doesNotContain(ChannelTesting.SLACK_SECRET);
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");
  }

  @Test
  void clicksOnUnknownOrFinishedQuestionsAndByPeopleItIsNotForAreRefused() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john.doe','channels':['slack'],'content':'Who answers?','options':['yes','no']}")
        .getString("id");
    FakeSlack.Message message = postedOnce(id);

    Response stranger = slack(broker, click(message, "yes", "U0MALLORY"));
    assertThat(stranger.status()).isEqualTo(403);
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");
    FakeService.Received told = fake.await(r -> r.path().endsWith("/chat.postEphemeral") && r.json().getString("user").equals("U0MALLORY"), WAIT);
    assertThat(told.json().getString("text")).contains("is for ark://users/john.doe");

    JsonObject unknownClick = click(message, "yes", JOHN_SLACK);
    JsonObject action = unknownClick.getJsonArray("actions").getJsonObject(0);
    action.put("block_id", action.getString("block_id").replace(id, "q-00000000-0000-0000-0000-000000000000"));
    assertThat(slack(broker, unknownClick).status()).isEqualTo(404);

    broker.patch("/questions/" + id, "{\"response\":\"no\",\"answeredBy\":\"ark://users/john.doe\"}");
    Response late = slack(broker, click(message, "yes", JOHN_SLACK));
    assertThat(late.status()).isEqualTo(409);
    JsonObject after = broker.get("/questions/" + id).json();
    assertThat(after.getString("response")).isEqualTo("no");
    String openedFrom = new JsonObject().put("question", id).put("message", message.channel() + "/" + message.ts()).encode();
    JsonObject form = submission(new JsonObject().put("callback_id", "ark_answer").put("private_metadata", openedFrom), JOHN_SLACK, "maybe");
    Response lateForm = slack(broker, form);
    assertThat(lateForm.status()).isEqualTo(200);
    assertThat(lateForm.json().getString("response_action")).isEqualTo("errors");
    assertThat(lateForm.json().getJsonObject("errors").getString("ark_response")).contains("already answered");
  }

  @Test
  void aChannelThatIsNotEnabledTakesNoRequests() throws Exception {
    Response response = ChannelTesting.github(broker, "issue_comment", "d-1", "{}", ChannelTesting.GITHUB_SECRET);

    assertThat(response.status()).isEqualTo(404);
    assertThat(response.error().getString("reason")).isEqualTo("NotFound");
  }
}
