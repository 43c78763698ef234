package ark.broker;

import ark.broker.question.EventType;
import ark.broker.question.Question;
import ark.broker.question.QuestionEvent;
import ark.broker.testing.Eventually;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestKafka;
import ark.broker.testing.TopicRecords;
import ark.broker.wire.QuestionJson;
import io.vertx.core.json.JsonObject;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compaction keeps only the newest record of each question. When that record is the loser of a race
 * (its writer died before it could repair it), a replica replaying the compacted topic would restore
 * the loser's state; the worker restates the winner's, so the newest record is always the truth.
 */
class CompactedRaceTest {
  static final TestKafka KAFKA = TestKafka.shared();

  @TempDir
  Path dataDir;

  @Test
  void aReplicaReplayingACompactedTopicAgreesOnTheWinnerOfARace() throws Exception {
    JsonObject cluster = KAFKA.cluster();
    String topic = cluster.getJsonObject("kafka").getString("questionsTopic");
    compactingAtOnce(topic);
    try (TestBroker a = TestBroker.start(dataDir.resolve("a"), cluster);
         KafkaProducer<String, byte[]> deadReplica = new KafkaProducer<>(Map.of("bootstrap.servers", KAFKA.bootstrapServers()),
             new StringSerializer(), new ByteArraySerializer())) {
      Question asked = QuestionJson.MAPPER.readValue(
          a.ask("{'recipient':'ark://users/john','content':'Merge?'}").encode(), Question.class);
      JsonObject winner = a.patch("/questions/" + asked.id(), "{\"response\":\"yes\"}").json();
      // A replica that decided on the same state as the winner, appended, and died before restating.
      QuestionEvent loser = QuestionEvent.changed(EventType.ANSWERED, asked, asked.answer("no", null, asked.createdAt()));
      deadReplica.send(new ProducerRecord<>(topic, 0, asked.id(), QuestionJson.MAPPER.writeValueAsBytes(loser)))
          .get(10, TimeUnit.SECONDS);

      List<TopicRecords.Entry> left = Eventually.until("compaction leaves one record of the question",
          () -> {
            a.ask("{'recipient':'ark://users/john','content':'something newer, to roll a segment'}");
            return recordsOf(topic, asked.id());
          },
          records -> records.size() == 1);
      assertThat(left.get(0).value()).as("the newest record restates the winner")
          .contains("\"restated\":true").contains("\"response\":\"yes\"");

      try (TestBroker late = TestBroker.start(dataDir.resolve("late"), cluster)) {
        assertThat(late.get("/questions/" + asked.id()).json()).isEqualTo(winner);
        assertThat(a.get("/questions/" + asked.id()).json()).isEqualTo(winner);
        JsonObject cancel = late.delete("/questions/" + asked.id()).json();
        assertThat(cancel.getJsonObject("error").getString("message")).contains("is already answered");
      }
    }
  }

  private static List<TopicRecords.Entry> recordsOf(String topic, String key) {
    return TopicRecords.read(KAFKA, topic).stream().filter(entry -> key.equals(entry.key())).toList();
  }

  /** Rolls a segment every 100 ms and cleans anything dirty, instead of keeping a day of history. */
  private static void compactingAtOnce(String topic) throws Exception {
    try (Admin admin = KAFKA.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of(
          "cleanup.policy", "compact",
          "segment.ms", "100",
          "min.cleanable.dirty.ratio", "0.001",
          "min.compaction.lag.ms", "0",
          "delete.retention.ms", "100")))).all().get(10, TimeUnit.SECONDS);
    }
  }
}
