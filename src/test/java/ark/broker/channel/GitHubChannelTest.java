package ark.broker.channel;

import ark.broker.testing.Forms;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
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
import static ark.broker.channel.ChannelTesting.JOHN_GITHUB;
import static ark.broker.channel.ChannelTesting.awaitQuestion;
import static ark.broker.channel.ChannelTesting.delivery;
import static ark.broker.channel.ChannelTesting.github;
import static ark.broker.channel.ChannelTesting.issueComment;
import static org.assertj.core.api.Assertions.assertThat;

/** Questions asked as GitHub comments and answered by replies, against a fake GitHub REST API on loopback. */
class GitHubChannelTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir
  static Path dataDir;
  static FakeGitHub fake;
  static TestBroker broker;

  @BeforeAll
  static void start() throws Exception {
    fake = FakeGitHub.start();
    broker = TestBroker.start(dataDir, ChannelTesting.config(null, fake, null)
        .put("http", new JsonObject().put("channelBodyLimitBytes", 65_536)));
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
    fake.close();
  }

  /** An issue of this test's own, so tests do not see each other's questions. */
  private static String someIssue() {
    return "acme/app#" + (1000 + (UUID.randomUUID().hashCode() & 0xffff));
  }

  private static JsonObject askOn(String issue, String extra) throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john.doe','sender':'ark://agents/release-bot','channels':['github:" + issue + "'],"
        + "'content':'Ship release 1.2?'" + extra + "}").getString("id");
    return awaitQuestion(broker, id, q -> delivery(q, "github:" + issue) != null);
  }

  private static Response comment(String issue, String login, String body) throws Exception {
    String[] parts = issue.split("#");
    return github(broker, "issue_comment", UUID.randomUUID().toString(), issueComment(parts[0], Long.parseLong(parts[1]), login, body),
        GITHUB_SECRET);
  }

  @Test
  void aQuestionIsCommentedOnceOnTheIssueItNamesWithAHiddenMarker() throws Exception {
    String issue = someIssue();
    JsonObject question = askOn(issue, ",'options':['yes','no'],'context':'All checks passed','priority':'high'");

    List<FakeGitHub.Comment> comments = fake.commentsOn(issue);
    assertThat(comments).hasSize(1);
    String body = comments.get(0).body();
    assertThat(body).contains("> Ship release 1.2?").contains("> All checks passed").contains("priority **high**")
        .contains("`ark://agents/release-bot`").contains("@" + JOHN_GITHUB).contains("`yes` · `no`")
        .contains("`/answer yes`").endsWith("<!-- ark-question:" + question.getString("id") + " -->");
    JsonObject record = delivery(question, "github:" + issue);
    assertThat(record.getString("ref")).isEqualTo(issue + "/comments/" + comments.get(0).id());
    assertThat(record.getString("label")).isEqualTo("GitHub " + issue);
    assertThat(fake.received("POST", "/repos/acme/app/issues/" + issue.split("#")[1] + "/comments").get(0).header("Authorization"))
        .isEqualTo("Bearer " + FakeGitHub.TOKEN);
  }

  @Test
  void anAnswerCommentAnswersTheQuestionAndTheOutcomeIsCommentedBack() throws Exception {
    String issue = someIssue();
    String id = askOn(issue, ",'options':['yes','no']").getString("id");

    Response answered = comment(issue, "JohnDoe", "Looks good to me.\n/answer YES\nThanks!");

    assertThat(answered.status()).isEqualTo(200);
    JsonObject question = broker.get("/questions/" + id).json();
    assertThat(question.getString("response")).isEqualTo("yes");
    assertThat(question.getString("answeredBy")).isEqualTo("ark://users/john.doe");
    awaitQuestion(broker, id, q -> "answered".equals(delivery(q, "github:" + issue).getString("outcome")));
    List<FakeGitHub.Comment> comments = fake.commentsOn(issue);
    assertThat(comments).hasSize(2);
    assertThat(comments.get(1).body()).contains("was answered by @" + JOHN_GITHUB).contains("> yes")
        .endsWith("<!-- ark-question:" + id + " outcome:answered -->");
  }

  @Test
  void withSeveralQuestionsOpenOnOneIssueTheAnswerMustSayWhichOne() throws Exception {
    String issue = someIssue();
    String first = askOn(issue, "").getString("id");
    String second = askOn(issue, "").getString("id");

    Response ambiguous = comment(issue, "someone", "/answer Friday");
    assertThat(ambiguous.status()).isEqualTo(400);
    assertThat(ambiguous.error().getString("message")).contains("2 questions are open");
    FakeService.Received told = fake.await(r -> r.method().equals("POST") && r.path().endsWith("/" + issue.split("#")[1] + "/comments")
        && r.body().contains("your answer was not recorded"), WAIT);
    assertThat(told.json().getString("body")).startsWith("@someone").contains("say which one");

    Response named = comment(issue, "someone", "/answer " + second + "\nFriday, after the freeze.\nSee the plan.");

    assertThat(named.status()).isEqualTo(200);
    assertThat(broker.get("/questions/" + second).json().getString("response")).isEqualTo("Friday, after the freeze.\nSee the plan.");
    assertThat(broker.get("/questions/" + second).json().getString("answeredBy")).isEqualTo("ark://users/github:someone");
    JsonObject answeredBy = ChannelTesting.whoAnswered(broker, second);
    assertThat(answeredBy.getString("principal")).as("open: the broker answers for anyone on the issue").isEqualTo("ark://users/system:broker");
    assertThat(answeredBy.getString("kind")).isEqualTo("admin");
    assertThat(answeredBy.getString("method")).isEqualTo("channel");
    assertThat(answeredBy.getString("userAgent")).isEqualTo("github:someone");
    assertThat(broker.get("/questions/" + first).json().getString("status")).isEqualTo("pending");
  }

  @Test
  void badSignaturesReplaysUnknownQuestionsAndLateAnswersAreRefusedAndChangeNothing() throws Exception {
    String issue = someIssue();
    String id = askOn(issue, "").getString("id");
    String[] parts = issue.split("#");
    String payload = issueComment(parts[0], Long.parseLong(parts[1]), JOHN_GITHUB, "/answer " + id + " approved");

    assertThat(github(broker, "issue_comment", "d-unsigned-" + id, payload, null).status()).isEqualTo(401);
    assertThat(github(broker, "issue_comment", "d-wrong-" + id, payload, "not-the-secret").status()).isEqualTo(401);
    assertThat(github(broker, "issue_comment", "d-tampered-" + id, payload.replace("approved", "rejected"), null).status()).isEqualTo(401);
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");

    Response unknown = comment(issue, JOHN_GITHUB, "/answer q-00000000-0000-0000-0000-000000000000 approved");
    assertThat(unknown.status()).isEqualTo(404);
    Response elsewhere = comment("acme/other#5", JOHN_GITHUB, "/answer " + id + " approved");
    assertThat(elsewhere.status()).isEqualTo(404);
    assertThat(elsewhere.error().getString("message")).contains("was not asked on acme/other#5");

    String deliveryId = "d-first-" + id;
    assertThat(github(broker, "issue_comment", deliveryId, payload, GITHUB_SECRET).status()).isEqualTo(200);
    Response replay = github(broker, "issue_comment", deliveryId, payload, GITHUB_SECRET);
    assertThat(replay.status()).isEqualTo(409);
    assertThat(replay.error().getString("message")).contains("already received");

    Response late = comment(issue, "alice", "/answer " + id + " rejected");
    assertThat(late.status()).isEqualTo(409);
    JsonObject question = broker.get("/questions/" + id).json();
    assertThat(question.getString("response")).isEqualTo("approved");
    assertThat(question.getString("answeredBy")).isEqualTo("ark://users/john.doe");
  }

  @Test
  void aBodyOverTheLimitIsRefusedBeforeItIsRead() throws Exception {
    String issue = someIssue();
    String id = askOn(issue, "").getString("id");
    String[] parts = issue.split("#");
    String huge = issueComment(parts[0], Long.parseLong(parts[1]), JOHN_GITHUB, "/answer " + id + " yes\n" + "x".repeat(70_000));

    Response refused = github(broker, "issue_comment", "d-huge-" + id, huge, GITHUB_SECRET);

    assertThat(refused.status()).isEqualTo(413);
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");
  }

  @Test
  void commentsWithoutAnAnswerAndOtherEventsAreAcknowledgedAndIgnored() throws Exception {
    String issue = someIssue();
    String id = askOn(issue, "").getString("id");

    Response chat = comment(issue, JOHN_GITHUB, "I will look at this tomorrow.\n> /answer quoted does not count");
    Response ping = github(broker, "ping", "d-ping", "{\"zen\":\"Keep it logically awesome.\"}", GITHUB_SECRET);
    Response push = github(broker, "push", "d-push", "{}", GITHUB_SECRET);

    assertThat(chat.json().getString("status")).isEqualTo("ignored");
    assertThat(ping.json().getString("status")).isEqualTo("pong");
    assertThat(push.json().getString("status")).isEqualTo("ignored");
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");
  }

  private static String refusalTo(String issue, String login) throws Exception {
    return fake.await(r -> r.method().equals("POST") && r.path().endsWith("/" + issue.split("#")[1] + "/comments")
        && r.body().contains("@" + login + " your answer was not recorded"), WAIT).json().getString("body");
  }

  @Test
  void aFormQuestionTakesKeyValueLinesOrAJsonBlockAndRefusesWrongFieldsChangingNothing() throws Exception {
    String issue = someIssue();
    JsonObject question = askOn(issue, ",'responseSchema':" + Forms.DEPLOY.replace('"', '\''));
    String id = question.getString("id");
    assertThat(fake.commentsOn(issue).get(0).body()).contains("`env` (Environment): one of `staging` (Staging) · `prod` (Production), required")
        .contains("`replicas`: a whole number from 1 up to 10, required").contains("/answer\nenv=staging\nreplicas=…\n");
    String version = broker.get("/questions?limit=1").json().getString("resourceVersion");

    Response tooMany = comment(issue, "wrong", "/answer\nenv=prod\nreplicas=12");
    Response notAPair = comment(issue, "wrong", "/answer\nenv is prod");
    assertThat(tooMany.status()).isEqualTo(400);
    assertThat(refusalTo(issue, "wrong")).contains("answer.replicas must be at most 10");
    assertThat(notAPair.error().getString("message")).contains("key=value lines or a ```json block; 'env is prod' is neither");
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");
    assertThat(broker.get("/questions?limit=1").json().getString("resourceVersion")).isEqualTo(version);

    Response answered = comment(issue, "someone", "/answer\nEnvironment = Production\nreplicas=3\nnotify=no");

    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(broker.get("/questions/" + id).json().getJsonObject("answer"))
        .isEqualTo(new JsonObject().put("env", "prod").put("replicas", 3).put("notify", false));
  }

  @Test
  void aFormAnswerMayBeAJsonBlock() throws Exception {
    String issue = someIssue();
    String id = askOn(issue, ",'responseSchema':" + Forms.DEPLOY.replace('"', '\'')).getString("id");

    Response answered = comment(issue, "someone", "/answer\n```json\n{\"env\": \"staging\", \"replicas\": 2}\n```");

    assertThat(answered.status()).as(answered.body()).isEqualTo(200);
    assertThat(broker.get("/questions/" + id).json().getJsonObject("answer").getString("env")).isEqualTo("staging");
  }

  @Test
  void anApprovalIsDecidedWithApproveOrRejectAndAReason() throws Exception {
    String issue = someIssue();
    String id = askOn(issue, ",'kind':'approval','reasonRequired':true,'arguments':{'branch':'old-ui'}").getString("id");
    assertThat(fake.commentsOn(issue).get(0).body()).contains("`/approve` or `/reject`").contains("a reason is required")
        .contains("\"branch\" : \"old-ui\"");

    Response noReason = comment(issue, "someone", "/reject");
    assertThat(noReason.status()).isEqualTo(400);
    assertThat(refusalTo(issue, "someone")).contains("decision.reason is required");
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");

    Response rejected = comment(issue, "someone", "/reject still linked from the docs");

    assertThat(rejected.status()).as(rejected.body()).isEqualTo(200);
    JsonObject decision = broker.get("/questions/" + id).json().getJsonObject("decision");
    assertThat(decision.getString("action")).isEqualTo("rejected");
    assertThat(decision.getString("reason")).isEqualTo("still linked from the docs");
    assertThat(decision.getString("decidedBy")).isEqualTo("ark://users/github:someone");
    FakeService.Received outcome = fake.await(r -> r.method().equals("POST") && r.body().contains("outcome:answered")
        && r.path().endsWith("/" + issue.split("#")[1] + "/comments"), WAIT);
    assertThat(outcome.json().getString("body")).contains("was **rejected** by").contains("> still linked from the docs");
  }

  @Test
  void approveOnAQuestionThatIsNoApprovalIsRefused() throws Exception {
    String issue = someIssue();
    String id = askOn(issue, "").getString("id");

    Response refused = comment(issue, "someone", "/approve");

    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.error().getString("message")).contains("is no approval: answer it with /answer");
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");
  }
}
