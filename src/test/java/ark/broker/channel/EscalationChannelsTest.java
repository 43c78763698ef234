package ark.broker.channel;

import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static ark.broker.channel.ChannelTesting.OPS;
import static ark.broker.channel.ChannelTesting.awaitQuestion;
import static ark.broker.channel.ChannelTesting.delivery;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A question nobody answers is reminded and escalated where it was posted: a reply in the Slack thread, a comment on
 * the GitHub issue, a webhook event; the people it is escalated to get the question itself where the channel reaches
 * people one by one (Slack direct messages).
 */
class EscalationChannelsTest {
  static final String ANN_SLACK = "U0ANN";

  @TempDir
  Path dataDir;

  /** The fakes' configuration, with ann (Slack, GitHub) in team oncall. */
  static JsonObject config(FakeSlack slack, FakeGitHub github, FakeService webhook) {
    JsonObject config = ChannelTesting.config(slack, github, webhook);
    JsonObject directory = config.getJsonObject("channels").getJsonObject("directory");
    directory.getJsonObject("users").put("ann", new JsonObject().put("slack", ANN_SLACK).put("github", "ann-gh"));
    directory.getJsonObject("teams").put("oncall", new JsonArray().add("ann"));
    return config;
  }

  static List<String> webhookEvents(FakeService webhook, String questionId) {
    return webhook.received("POST", "/hooks/ark").stream().filter(r -> r.body().contains(questionId))
        .map(r -> r.header("X-Ark-Event")).toList();
  }

  static List<String> historyTypes(TestBroker broker, String id) throws Exception {
    return broker.get("/questions/" + id + "/events").json().getJsonArray("items").stream()
        .map(item -> ((JsonObject) item).getString("type")).toList();
  }

  @Test
  void aQuestionNobodyAnswersIsRemindedThenEscalatedInEveryChannelOnce() throws Exception {
    try (FakeSlack slack = FakeSlack.start(); FakeGitHub github = FakeGitHub.start();
         FakeService webhook = new FakeService(request -> FakeService.Reply.json(200, new JsonObject()));
         TestBroker broker = TestBroker.start(dataDir, config(slack, github, webhook))) {
      String id = broker.ask("{'recipient':'ark://users/john.doe','content':'Roll back the release?',"
          + "'channels':['slack:ops','slack:dm','github:acme/app#1','webhook'],"
          + "'escalation':{'remindAfterSeconds':3,'escalateAfterSeconds':5,'escalateTo':['ark://teams/oncall']}}").getString("id");

      JsonObject told = awaitQuestion(broker, id, q -> {
        JsonArray deliveries = q.getJsonArray("deliveries", new JsonArray());
        return deliveries.size() == 5 && deliveries.stream().map(JsonObject.class::cast)
            .allMatch(d -> d.getString("remindedAt") != null && d.getString("escalatedAt") != null);
      });

      assertThat(told.getString("status")).isEqualTo("pending");
      assertThat(told.getString("remindedAt")).isNotNull();
      assertThat(told.getString("escalatedAt")).isNotNull();
      assertThat(historyTypes(broker, id)).filteredOn(type -> !type.equals("question_delivered"))
          .containsExactly("question_created", "question_reminded", "question_escalated");
      JsonObject escalation = broker.get("/questions/" + id + "/events").json().getJsonArray("items").stream()
          .map(JsonObject.class::cast).filter(item -> item.getString("type").equals("question_escalated")).findFirst().orElseThrow();
      assertThat(escalation.getJsonObject("by").getString("principal")).isEqualTo("ark://users/system:broker");
      assertThat(escalation.getString("reason")).isEqualTo("nobody answered within 5 s; now also asking ark://teams/oncall");

      FakeSlack.Message inOps = only(slack.messagesFor(id).stream().filter(m -> m.channel().equals(OPS)).toList());
      assertThat(slack.repliesTo(inOps)).extracting(reply -> reply.posted().getString("text")).containsExactlyInAnyOrder(
          "Reminder: question " + id + " still waits for an answer from <@U0JOHN>.",
          "Escalated: nobody has answered question " + id + " yet, so ark://teams/oncall (<@" + ANN_SLACK + ">) is asked too.");
      FakeSlack.Message toJohn = only(slack.messagesFor(id).stream().filter(m -> m.channel().equals("DU0JOHN")).toList());
      assertThat(slack.repliesTo(toJohn)).hasSize(2);
      FakeSlack.Message toAnn = only(slack.messagesFor(id).stream().filter(m -> m.channel().equals("D" + ANN_SLACK)).toList());
      assertThat(slack.repliesTo(toAnn)).as("ann got the question itself, after the escalation: nothing to add").isEmpty();
      assertThat(delivery(told, "slack:dm:ann")).isNotNull();

      List<String> comments = github.commentsOn("acme/app#1").stream().map(FakeGitHub.Comment::body).toList();
      assertThat(comments).hasSize(3);
      assertThat(comments.get(1) + comments.get(2)).contains("Reminder: question " + id, "ark://teams/oncall (@ann-gh (`ark://users/ann`)) is asked too");

      assertThat(webhookEvents(webhook, id)).containsExactlyInAnyOrder("question_created", "question_reminded", "question_escalated");
    }
  }

  @Test
  void aQuestionAnsweredBeforeItsReminderIsNeitherRemindedNorEscalated() throws Exception {
    try (FakeSlack slack = FakeSlack.start();
         TestBroker broker = TestBroker.start(dataDir, config(slack, null, null))) {
      String id = broker.ask("{'recipient':'ark://users/john.doe','content':'Quick one?','channels':['slack:ops'],"
          + "'escalation':{'remindAfterSeconds':1,'escalateAfterSeconds':1,'escalateTo':['ark://teams/oncall']}}").getString("id");
      awaitQuestion(broker, id, q -> delivery(q, "slack:ops") != null);
      assertThat(broker.patch("/questions/" + id, "{\"response\":\"yes\"}").status()).isEqualTo(200);

      // The outcome shown on the post is the last thing the worker does for it; a reminder would come after the due time.
      awaitQuestion(broker, id, q -> "answered".equals(delivery(q, "slack:ops").getString("outcome")));
      String later = broker.ask("{'recipient':'ark://users/john.doe','content':'Later one?','channels':['slack:ops'],"
          + "'escalation':{'remindAfterSeconds':2}}").getString("id");
      awaitQuestion(broker, later, q -> q.getString("remindedAt") != null);

      assertThat(historyTypes(broker, id)).doesNotContain("question_reminded", "question_escalated");
      assertThat(slack.repliesTo(only(slack.messagesFor(id)))).isEmpty();
    }
  }

  private static <T> T only(List<T> items) {
    assertThat(items).hasSize(1);
    return items.get(0);
  }
}
