package ark.broker.channel;

import ark.broker.testing.Forms;
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

  /** A submission of a typed modal: {@code state} maps each input's block id to its element's state. */
  private static JsonObject submitted(JsonObject view, JsonObject state) {
    JsonObject values = new JsonObject();
    state.forEach(entry -> values.put(entry.getKey(), new JsonObject().put("ark_value", entry.getValue())));
    JsonObject submission = ChannelTesting.submission(view, JOHN_SLACK, "");
    submission.getJsonObject("view").put("state", new JsonObject().put("values", values));
    return submission;
  }

  private static JsonObject typed(String text) {
    return new JsonObject().put("type", "plain_text_input").put("value", text);
  }

  private static JsonObject input(JsonObject view, String blockId) {
    return view.getJsonArray("blocks").stream().map(JsonObject.class::cast)
        .filter(block -> blockId.equals(block.getString("block_id"))).findFirst().orElseThrow();
  }

  /** Clicks the button with {@code value} and returns the modal it opened for the question (for the decision, if any). */
  private static JsonObject openedView(FakeSlack.Message message, String value, String id, String decision) throws Exception {
    assertThat(slack(broker, click(message, value, JOHN_SLACK)).status()).isEqualTo(200);
    return fake.await(r -> r.path().endsWith("/views.open") && r.body().contains(id) && java.util.Objects.equals(decision,
        new JsonObject(r.json().getJsonObject("view").getString("private_metadata")).getString("action")), WAIT)
        .json().getJsonObject("view");
  }

  @Test
  void aFormQuestionOpensAModalWithAnInputAFieldAndAWrongValueIsShownUnderItsInput() throws Exception {
    String id = broker.ask(new JsonObject().put("recipient", "ark://users/john.doe").put("channels", new JsonArray().add("slack"))
        .put("content", "Deploy where?").put("responseSchema", new JsonObject(Forms.DEPLOY)).encode()).getString("id");
    FakeSlack.Message message = postedOnce(id);

    JsonObject view = openedView(message, id, id, null);

    JsonObject env = input(view, "ark_field|env");
    assertThat(env.getJsonObject("label").getString("text")).isEqualTo("Environment");
    assertThat(env.getBoolean("optional")).isFalse();
    assertThat(env.getJsonObject("element").getString("type")).isEqualTo("static_select");
    assertThat(env.getJsonObject("element").getJsonArray("options").getJsonObject(1))
        .isEqualTo(new JsonObject().put("text", new JsonObject().put("type", "plain_text").put("text", "Production")).put("value", "prod"));
    JsonObject replicas = input(view, "ark_field|replicas");
    assertThat(replicas.getJsonObject("element").getString("type")).isEqualTo("plain_text_input");
    assertThat(replicas.getJsonObject("hint").getString("text")).isEqualTo("A whole number from 1 up to 10");
    JsonObject notify = input(view, "ark_field|notify");
    assertThat(notify.getJsonObject("element").getString("type")).isEqualTo("checkboxes");
    assertThat(notify.getJsonObject("element").getJsonArray("initial_options")).hasSize(1);
    assertThat(input(view, "ark_field|contact").getBoolean("optional")).isTrue();

    JsonObject prod = new JsonObject().put("type", "static_select").put("selected_option", new JsonObject().put("value", "prod"));
    JsonObject ticked = new JsonObject().put("type", "checkboxes").put("selected_options",
        new JsonArray().add(new JsonObject().put("value", "true")));
    String version = broker.get("/questions?limit=1").json().getString("resourceVersion");
    Response wrong = slack(broker, submitted(view, new JsonObject().put("ark_field|env", prod)
        .put("ark_field|replicas", typed("twelve")).put("ark_field|notify", ticked).put("ark_field|contact", typed(null))));

    assertThat(wrong.json().getString("response_action")).isEqualTo("errors");
    assertThat(wrong.json().getJsonObject("errors").getString("ark_field|replicas")).contains("answer.replicas must be a number");
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");
    assertThat(broker.get("/questions?limit=1").json().getString("resourceVersion")).isEqualTo(version);

    Response right = slack(broker, submitted(view, new JsonObject().put("ark_field|env", prod)
        .put("ark_field|replicas", typed(" 3 ")).put("ark_field|notify", ticked).put("ark_field|contact", typed(null))));

    assertThat(right.status()).isEqualTo(200);
    assertThat(right.body()).isEmpty();
    JsonObject answered = broker.get("/questions/" + id).json();
    assertThat(answered.getJsonObject("answer")).isEqualTo(new JsonObject().put("env", "prod").put("replicas", 3).put("notify", true));
    assertThat(answered.getString("answeredBy")).isEqualTo("ark://users/john.doe");
    FakeService.Received update = fake.await(r -> r.path().endsWith("/chat.update") && r.json().getString("ts").equals(message.ts()), WAIT);
    assertThat(texts(update.json())).contains("*Environment:* prod").contains("*replicas:* 3");
  }

  @Test
  void anApprovalHasApproveAndRejectButtonsWhoseModalAsksForTheReason() throws Exception {
    String id = broker.ask(new JsonObject().put("recipient", "ark://users/john.doe").put("channels", new JsonArray().add("slack"))
        .put("content", "Drop table users?").put("kind", "approval").put("reasonRequired", true)
        .put("arguments", new JsonObject().put("table", "users")).encode()).getString("id");
    FakeSlack.Message message = postedOnce(id);
    assertThat(texts(message.posted())).contains("\"Approve\"").contains("\"Reject\"").contains("\"style\":\"danger\"");

    JsonObject rejecting = openedView(message, "rejected", id, "rejected");
    assertThat(rejecting.getJsonObject("title").getString("text")).isEqualTo("Reject");
    assertThat(input(rejecting, "ark_reason").getBoolean("optional")).isFalse();
    Response noReason = slack(broker, submitted(rejecting, new JsonObject().put("ark_reason", typed(" "))));
    assertThat(noReason.json().getJsonObject("errors").getString("ark_reason")).contains("decision.reason is required");
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");

    JsonObject approving = openedView(message, "approved", id, "approved");
    assertThat(input(approving, "ark_arguments").getJsonObject("element").getString("initial_value")).contains("\"table\" : \"users\"");
    Response approved = slack(broker, submitted(approving, new JsonObject().put("ark_reason", typed("a copy exists"))
        .put("ark_arguments", typed("{\"table\": \"users_old\"}"))));

    assertThat(approved.status()).isEqualTo(200);
    JsonObject decision = broker.get("/questions/" + id).json().getJsonObject("decision");
    assertThat(decision.getString("action")).isEqualTo("approved");
    assertThat(decision.getString("reason")).isEqualTo("a copy exists");
    assertThat(decision.getJsonObject("arguments")).isEqualTo(new JsonObject().put("table", "users_old"));
    assertThat(decision.getString("decidedBy")).isEqualTo("ark://users/john.doe");
    FakeService.Received update = fake.await(r -> r.path().endsWith("/chat.update") && r.json().getString("ts").equals(message.ts()), WAIT);
    assertThat(texts(update.json())).contains("*Approved*: a copy exists");
  }
}
