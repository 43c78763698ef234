package ark.broker.channel;

import ark.broker.testing.Eventually;
import ark.broker.testing.Identities;
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
import java.util.List;
import java.util.UUID;

import static ark.broker.channel.ChannelTesting.GITHUB_SECRET;
import static ark.broker.channel.ChannelTesting.assertAnsweredInChannel;
import static ark.broker.channel.ChannelTesting.click;
import static ark.broker.channel.ChannelTesting.delivery;
import static ark.broker.channel.ChannelTesting.github;
import static ark.broker.channel.ChannelTesting.issueComment;
import static ark.broker.channel.ChannelTesting.slack;
import static ark.broker.channel.ChannelTesting.submission;
import static ark.broker.channel.ChannelTesting.whoAnswered;
import static ark.broker.testing.Identities.ADMIN;
import static ark.broker.testing.Identities.AGENT;
import static ark.broker.testing.Identities.HUMAN;
import static ark.broker.testing.Identities.HUMAN_NAME;
import static ark.broker.testing.Identities.TEAM;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slack and GitHub with authentication on: the account that clicks or comments answers as the person the
 * directory says it is, only questions that person may answer, and only from the post the question was delivered
 * as. Every refusal leaves the question and its history as they were.
 */
class ChannelIdentityTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String ANN_SLACK = "U0ANN";
  private static final String BOB_SLACK = "U0BOB";
  private static final String ANN_GITHUB = "ann-gh";
  private static final String BOB_GITHUB = "bob-gh";

  @TempDir
  static Path dir;
  static FakeSlack slack;
  static FakeGitHub gitHub;
  static TestBroker broker;
  static TestBroker admin;

  @BeforeAll
  static void start() throws Exception {
    slack = FakeSlack.start();
    gitHub = FakeGitHub.start();
    JsonObject config = ChannelTesting.config(slack, gitHub, null).mergeIn(Identities.config(dir), true);
    config.getJsonObject("channels").getJsonObject("directory").getJsonObject("users")
        .put("ann", new JsonObject().put("slack", ANN_SLACK).put("github", ANN_GITHUB))
        .put("bob", new JsonObject().put("slack", BOB_SLACK).put("github", BOB_GITHUB));
    config.getJsonObject("channels").getJsonObject("directory").getJsonObject("teams")
        .put(TEAM.substring("ark://teams/".length()), new JsonArray().add("ann"));
    broker = TestBroker.start(dir.resolve("data"), config);
    admin = broker.as(ADMIN);
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
    slack.close();
    gitHub.close();
  }

  /** An agent's question, once the channel has posted it. */
  private static JsonObject ask(String recipient, String channel, List<String> options) throws Exception {
    JsonObject body = new JsonObject().put("recipient", recipient).put("channels", new JsonArray().add(channel))
        .put("content", "Ship it? " + UUID.randomUUID());
    if (options != null) {
      body.put("options", new JsonArray(options));
    }
    Response created = broker.as(AGENT).post("/questions", body.encode());
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    String id = created.json().getString("id");
    return Eventually.until("question " + id + " posted to " + channel, () -> question(id), q -> delivery(q, channel) != null);
  }

  private static JsonObject question(String id) throws Exception {
    return admin.get("/questions/" + id).json();
  }

  private static JsonArray history(String id) throws Exception {
    return admin.get("/questions/" + id + "/events").json().getJsonArray("items");
  }

  private static FakeSlack.Message postOf(String id) {
    List<FakeSlack.Message> messages = slack.messagesFor(id);
    assertThat(messages).hasSize(1);
    return messages.get(0);
  }

  private static Response comment(String issue, String login, String body) throws Exception {
    String[] parts = issue.split("#");
    return github(broker, "issue_comment", UUID.randomUUID().toString(),
        issueComment(parts[0], Long.parseLong(parts[1]), login, body), GITHUB_SECRET);
  }

  @Test
  void annsClickAnswersAsHerAndTheHistorySaysItCameThroughSlack() throws Exception {
    String id = ask(HUMAN_NAME, "slack", List.of("yes", "no")).getString("id");

    Response clicked = slack(broker, click(postOf(id), "yes", ANN_SLACK));

    assertThat(clicked.status()).as(clicked.body()).isEqualTo(200);
    JsonObject answered = broker.as(HUMAN).get("/questions/" + id).json();
    assertThat(answered.getString("status")).isEqualTo("answered");
    assertThat(answered.getString("answeredBy")).isEqualTo(HUMAN_NAME);
    assertAnsweredInChannel(admin, id, HUMAN_NAME, "slack:" + ANN_SLACK);
  }

  @Test
  void aTeamQuestionIsAnsweredByAMemberThroughTheFormAndNotByAnyoneElse() throws Exception {
    String id = ask(TEAM, "slack", null).getString("id");
    FakeSlack.Message message = postOf(id);

    Response bobOpens = slack(broker, click(message, id, BOB_SLACK));
    Response annOpens = slack(broker, click(message, id, ANN_SLACK));

    assertThat(bobOpens.status()).isEqualTo(403);
    assertThat(annOpens.status()).as(annOpens.body()).isEqualTo(200);
    JsonObject form = slack.await(r -> r.path().endsWith("/views.open") && r.body().contains(id), WAIT).json().getJsonObject("view");
    Response bobSubmits = slack(broker, submission(form, BOB_SLACK, "Never"));
    assertThat(bobSubmits.json().getJsonObject("errors").getString("ark_response")).contains("may not answer");
    assertThat(question(id).getString("status")).isEqualTo("pending");

    Response annSubmits = slack(broker, submission(form, ANN_SLACK, "Monday"));

    assertThat(annSubmits.status()).isEqualTo(200);
    assertThat(annSubmits.body()).isEmpty();
    assertThat(question(id).getString("answeredBy")).isEqualTo(HUMAN_NAME);
    assertThat(whoAnswered(admin, id).getString("principal")).isEqualTo(HUMAN_NAME);
  }

  @Test
  void bobsClickOnAnnsQuestionIsRefusedAndChangesNothing() throws Exception {
    String id = ask(HUMAN_NAME, "slack", List.of("yes", "no")).getString("id");
    FakeSlack.Message message = postOf(id);
    JsonObject before = question(id);
    JsonArray historyBefore = history(id);

    Response bob = slack(broker, click(message, "yes", BOB_SLACK));
    Response stranger = slack(broker, click(message, "yes", "U0MALLORY"));

    assertThat(List.of(bob.status(), stranger.status())).containsOnly(403);
    assertThat(bob.error().getString("message")).contains("is for " + HUMAN_NAME).contains("ark://users/bob may not answer");
    FakeService.Received told = slack.await(r -> r.path().endsWith("/chat.postEphemeral") && r.json().getString("user").equals(BOB_SLACK), WAIT);
    assertThat(told.json().getString("text")).contains("may not answer");
    assertThat(question(id)).isEqualTo(before);
    assertThat(history(id)).isEqualTo(historyBefore);
  }

  @Test
  void aQuestionForAChannelIsAnsweredByAnyoneThereAndTheBrokerIsRecordedAsAnsweringForThem() throws Exception {
    String id = ask("ark://channels/ops", "slack", List.of("yes", "no")).getString("id");

    Response clicked = slack(broker, click(postOf(id), "no", BOB_SLACK));

    assertThat(clicked.status()).as(clicked.body()).isEqualTo(200);
    assertThat(question(id).getString("answeredBy")).isEqualTo("ark://users/bob");
    JsonObject by = whoAnswered(admin, id);
    assertThat(by.getString("principal")).isEqualTo("ark://users/system:broker");
    assertThat(by.getString("kind")).isEqualTo("admin");
    assertThat(by.getString("method")).isEqualTo("channel");
    assertThat(by.getString("userAgent")).isEqualTo("slack:" + BOB_SLACK);
  }

  @Test
  void aSignedClickOrFormForOneQuestionCarryingAnotherQuestionsMessageIsRefused() throws Exception {
    String a = ask(HUMAN_NAME, "slack", List.of("yes", "no")).getString("id");
    String b = ask(HUMAN_NAME, "slack", List.of("yes", "no")).getString("id");
    FakeSlack.Message messageOfB = postOf(b);
    JsonObject forAOnB = click(postOf(a), "yes", ANN_SLACK);
    forAOnB.getJsonObject("container").put("channel_id", messageOfB.channel()).put("message_ts", messageOfB.ts());
    forAOnB.getJsonObject("message").put("ts", messageOfB.ts());
    JsonObject formForAOnB = submission(new JsonObject().put("callback_id", "ark_answer").put("private_metadata",
        new JsonObject().put("question", a).put("message", messageOfB.channel() + "/" + messageOfB.ts()).encode()), ANN_SLACK, "yes");
    JsonObject formWithoutMessage = submission(new JsonObject().put("callback_id", "ark_answer").put("private_metadata", a),
        ANN_SLACK, "yes");
    JsonObject before = question(a);

    Response clicked = slack(broker, forAOnB);
    Response submitted = slack(broker, formForAOnB);
    Response unplaced = slack(broker, formWithoutMessage);

    assertThat(clicked.status()).isEqualTo(403);
    assertThat(clicked.error().getString("message")).contains("was not posted to Slack message " + messageOfB.channel() + "/" + messageOfB.ts());
    assertThat(submitted.json().getJsonObject("errors").getString("ark_response")).contains("was not posted to");
    assertThat(unplaced.json().getJsonObject("errors").getString("ark_response")).contains("open it again");
    assertThat(question(a)).isEqualTo(before);
    assertThat(question(b).getString("status")).isEqualTo("pending");
  }

  @Test
  void aGitHubCommentAnswersAsTheCommenterOnlyOnTheIssueTheQuestionWasAskedOn() throws Exception {
    String issue = "acme/app#" + (1000 + (UUID.randomUUID().hashCode() & 0xffff));
    String id = ask(HUMAN_NAME, "github:" + issue, null).getString("id");
    JsonObject before = question(id);

    Response elsewhere = comment("acme/app#1", ANN_GITHUB, "/answer " + id + " approved");
    Response byBob = comment(issue, BOB_GITHUB, "/answer " + id + " approved");

    assertThat(elsewhere.status()).isEqualTo(404);
    assertThat(elsewhere.error().getString("message")).contains("was not asked on acme/app#1");
    assertThat(byBob.status()).isEqualTo(403);
    assertThat(question(id)).isEqualTo(before);

    Response byAnn = comment(issue, ANN_GITHUB, "/answer approved");

    assertThat(byAnn.status()).as(byAnn.body()).isEqualTo(200);
    assertThat(question(id).getString("answeredBy")).isEqualTo(HUMAN_NAME);
    JsonObject by = whoAnswered(admin, id);
    assertThat(by.getString("principal")).isEqualTo(HUMAN_NAME);
    assertThat(by.getString("method")).isEqualTo("channel");
    assertThat(by.getString("userAgent")).isEqualTo("github:" + ANN_GITHUB);
  }
}
