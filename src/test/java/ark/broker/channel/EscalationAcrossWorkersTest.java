package ark.broker.channel;

import ark.broker.testing.Eventually;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestKafka;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static ark.broker.channel.ChannelTesting.OPS;
import static ark.broker.channel.ChannelTesting.awaitQuestion;
import static ark.broker.channel.ChannelTesting.delivery;
import static ark.broker.channel.EscalationChannelsTest.historyTypes;
import static ark.broker.channel.EscalationChannelsTest.webhookEvents;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two replicas on Kafka: the worker reminds, then stops; the other becomes the worker and escalates. Each step
 * happens once, in the history and in every channel, because what was done is recorded in the log, not in the
 * worker's memory.
 */
class EscalationAcrossWorkersTest {
  @TempDir
  Path dataDir;

  private static boolean isWorker(TestBroker broker) {
    try {
      return broker.get("/metrics").body().lines().anyMatch(line -> line.startsWith("ark_broker_worker 1"));
    } catch (Exception unreachable) {
      return false;
    }
  }

  @Test
  void aReminderAndAnEscalationHappenExactlyOnceWhileTheWorkerChanges() throws Exception {
    try (FakeSlack slack = FakeSlack.start();
         FakeService webhook = new FakeService(request -> FakeService.Reply.json(200, new JsonObject()))) {
      JsonObject config = TestKafka.shared().cluster().mergeIn(EscalationChannelsTest.config(slack, null, webhook), true);
      TestBroker first = TestBroker.start(dataDir.resolve("first"), config);
      TestBroker second = TestBroker.start(dataDir.resolve("second"), config);
      TestBroker worker = Eventually.until("one replica is the worker",
          () -> isWorker(first) ? first : isWorker(second) ? second : null, found -> found != null);
      TestBroker next = worker == first ? second : first;
      try {
        String id = next.ask("{'recipient':'ark://users/john.doe','content':'Rotate the keys?','channels':['slack:ops','webhook'],"
            + "'escalation':{'remindAfterSeconds':2,'escalateAfterSeconds':5,'escalateTo':['ark://teams/oncall']}}").getString("id");
        awaitQuestion(next, id, q -> delivery(q, "slack:ops") != null && delivery(q, "slack:ops").getString("remindedAt") != null
            && delivery(q, "webhook").getString("remindedAt") != null);
        assertThat(next.get("/questions/" + id).json().getString("escalatedAt")).as("the worker changes before the escalation").isNull();

        worker.close();
        Eventually.until("the other replica becomes the worker", () -> isWorker(next), isWorker -> isWorker);
        JsonObject escalated = awaitQuestion(next, id, q -> delivery(q, "slack:ops").getString("escalatedAt") != null
            && delivery(q, "webhook").getString("escalatedAt") != null);

        assertThat(escalated.getString("status")).isEqualTo("pending");
        assertThat(historyTypes(next, id)).filteredOn(type -> !type.equals("question_delivered"))
            .containsExactly("question_created", "question_reminded", "question_escalated");
        List<FakeSlack.Message> posts = slack.messagesFor(id);
        assertThat(posts).hasSize(1);
        assertThat(posts.get(0).channel()).isEqualTo(OPS);
        assertThat(slack.repliesTo(posts.get(0))).extracting(reply -> reply.posted().getString("text").substring(0, 10))
            .containsExactly("Reminder: ", "Escalated:");
        assertThat(webhookEvents(webhook, id)).containsExactly("question_created", "question_reminded", "question_escalated");
      } finally {
        next.close();
        worker.close();
      }
    }
  }
}
