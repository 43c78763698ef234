package ark.broker.log;

import ark.broker.ConfigLoader;
import ark.broker.testing.CapturedLog;
import ark.broker.testing.Eventually;
import ark.broker.testing.TestKafka;
import ark.broker.testing.TopicRecords;
import ch.qos.logback.classic.Level;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The event log contract on a real Kafka topic, and what the log demands of the topic. */
class KafkaEventLogTest {
  static final TestKafka KAFKA = TestKafka.shared();
  static Vertx vertx;
  static Admin admin;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    admin = KAFKA.admin();
  }

  @AfterAll
  static void stop() throws Exception {
    admin.close();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static String freshTopic() {
    return "log-test-" + UUID.randomUUID();
  }

  private static KafkaLogSettings settings(String topic) {
    return settings(topic, new JsonObject());
  }

  /** The tests' Kafka and the bundled defaults, with {@code overrides} of the kafka section. */
  private static KafkaLogSettings settings(String topic, JsonObject overrides) {
    JsonObject kafka = ConfigLoader.bundledDefaults().getJsonObject("kafka")
        .mergeIn(KAFKA.cluster().getJsonObject("kafka")).mergeIn(overrides).put("topic", topic);
    return KafkaLogSettings.from(kafka, "topic");
  }

  /** A log opened on its own context, remembering what its sink received, as "position:key-or-payload". */
  private static final class OpenLog {
    final KafkaEventLog log;
    final Context context = vertx.getOrCreateContext();
    final RecordingSink sink = new RecordingSink();
    final List<String> seen = sink.seen;

    OpenLog(String topic) {
      this(settings(topic));
    }

    OpenLog(KafkaLogSettings settings) {
      this.log = new KafkaEventLog(vertx, settings);
    }

    OpenLog open() throws Exception {
      onContext(() -> log.open(sink));
      return this;
    }

    long append(String key, String payload) throws Exception {
      return onContext(() -> log.append(key, payload.getBytes(StandardCharsets.UTF_8)));
    }

    <T> T onContext(Callable<Future<T>> action) throws Exception {
      return OnContext.await(OnContext.run(context, action));
    }

    void close() throws Exception {
      onContext(log::close);
    }
  }

  @Test
  void positionsAreOffsetsPlusOneAndALaterReaderReplaysEverythingBeforeItOpens() throws Exception {
    String topic = freshTopic();
    OpenLog writer = new OpenLog(topic).open();
    List<Long> positions = new ArrayList<>();
    for (int i = 1; i <= 50; i++) {
      positions.add(writer.append("k" + (i % 7), "{\"n\":" + i + "}"));
    }

    OpenLog late = new OpenLog(topic).open();

    assertThat(positions).containsExactlyElementsOf(IntStream.rangeClosed(1, 50).mapToObj(i -> (long) i).toList());
    assertThat(late.seen).as("replayed before open completed").hasSize(50)
        .startsWith("1:{\"n\":1}").endsWith("50:{\"n\":50}");
    Eventually.until("the writer applies its own appends", () -> writer.seen.size(), size -> size == 50);
    assertThat(writer.seen).isEqualTo(late.seen);
    writer.close();
    late.close();
  }

  @Test
  void aReaderSeesAnotherReplicasAppendAfterCatchingUp() throws Exception {
    String topic = freshTopic();
    OpenLog a = new OpenLog(topic).open();
    OpenLog b = new OpenLog(topic).open();
    for (int round = 0; round < 20; round++) {
      long position = a.append("k", "{\"round\":" + round + "}");

      b.onContext(b.log::catchUp);

      assertThat(b.seen).as("round %d", round).last().isEqualTo(position + ":{\"round\":" + round + "}");
    }
    a.close();
    b.close();
  }

  @Test
  void anAppendIsAppliedByItsWriterWhenAcknowledgedWithoutWaitingToReadItBack() throws Exception {
    OpenLog writer = new OpenLog(freshTopic()).open();
    for (int n = 1; n <= 20; n++) {
      String payload = "{\"n\":" + n + "}";
      long position = writer.append("k", payload);

      // The next task on the log's context: by then the acknowledgement has been applied, whatever the fetch does.
      boolean applied = writer.onContext(() -> Future.succeededFuture(writer.seen.contains(position + ":" + payload)));

      assertThat(applied).as("append %d applied once acknowledged", n).isTrue();
    }
    writer.close();
  }

  @Test
  void appendsBetweenAnotherWritersRecordsAreAppliedInTheLogsOrderEachOnce() throws Exception {
    String topic = freshTopic();
    OpenLog writer = new OpenLog(topic).open();
    for (int round = 0; round < 10; round++) {
      produce(topic, "other", "{\"other\":" + round + "}", "2");
      writer.append("k", "{\"own\":" + round + "}");
    }

    OpenLog late = new OpenLog(topic).open();

    assertThat(late.seen).hasSize(20);
    Eventually.until("the writer has every record", () -> List.copyOf(writer.seen), seen -> seen.size() >= 20);
    assertThat(writer.seen).as("in the log's order, none twice").isEqualTo(late.seen);
    writer.close();
    late.close();
  }

  @Test
  void aRemovedKeyIsATombstoneThatReadersReceiveWithItsKey() throws Exception {
    String topic = freshTopic();
    OpenLog writer = new OpenLog(topic).open();
    writer.append("session-1", "{\"open\":true}");
    long removed = writer.onContext(() -> writer.log.remove("session-1", "{\"ignored\":true}".getBytes(StandardCharsets.UTF_8)));

    OpenLog late = new OpenLog(topic).open();

    assertThat(late.seen).containsExactly("1:{\"open\":true}", removed + ":end of session-1");
    writer.close();
    late.close();
  }

  @Test
  void everyRecordCarriesItsFormatAndOneWithoutIsReadAsTheFirstFormat() throws Exception {
    String topic = freshTopic();
    OpenLog writer = new OpenLog(topic).open();
    writer.append("k", "{\"n\":1}");
    produce(topic, "k", "{\"n\":2}", null);

    OpenLog late = new OpenLog(topic).open();

    assertThat(TopicRecords.read(KAFKA, topic)).extracting(TopicRecords.Entry::format).containsExactly("2", null);
    assertThat(late.seen).containsExactly("1:{\"n\":1}", "2:{\"n\":2}");
    writer.close();
    late.close();
  }

  @Test
  void aRecordOfANewerFormatStopsAReaderAndIsRefusedAtReplayRatherThanMisread() throws Exception {
    String topic = freshTopic();
    OpenLog live = new OpenLog(topic).open();
    live.append("k", "{\"n\":1}");
    produce(topic, "k", "{\"n\":2,\"means\":\"something else now\"}", "3");
    produce(topic, "k", "{\"n\":3}", "2");
    String refusal = "The record at position 2 of Kafka topic " + topic
        + " was written by a newer Ark Broker (record format 3); this version reads formats 1 to 2";

    Eventually.until("the reader stops at the newer record", live.log::cannotWrite, reason -> reason != null);

    assertThat(live.log.cannotWrite()).startsWith(refusal);
    assertThat(live.seen).containsExactly("1:{\"n\":1}");
    assertThatThrownBy(() -> live.append("k", "{\"n\":4}")).hasMessageStartingWith(refusal);
    assertThatThrownBy(() -> new OpenLog(topic).open()).hasMessageStartingWith(refusal);
    live.close();
  }

  /** Writes a record as another broker version would: with {@code format} in its header, or none. */
  private static void produce(String topic, String key, String value, String format) throws Exception {
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers", KAFKA.bootstrapServers()),
        new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, key, value);
      if (format != null) {
        record.headers().add("ark-broker-format", format.getBytes(StandardCharsets.US_ASCII));
      }
      producer.send(record).get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aMissingTopicIsCreatedCompactedWithOnePartition() throws Exception {
    String topic = freshTopic();
    OpenLog log = new OpenLog(topic).open();

    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    var config = admin.describeConfigs(List.of(resource)).all().get(10, TimeUnit.SECONDS).get(resource);
    assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
    assertThat(config.get("min.compaction.lag.ms").value()).isEqualTo("86400000");
    assertThat(admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic).partitions())
        .hasSize(1);
    log.close();
  }

  @Test
  void aTopicThatDeletesByAgeIsRefusedWithAClearError() throws Exception {
    String topic = freshTopic();
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("cleanup.policy", "delete"))))
        .all().get(10, TimeUnit.SECONDS);

    assertThatThrownBy(() -> new OpenLog(topic).open())
        .hasMessageContaining("Kafka topic " + topic + " has cleanup.policy=delete")
        .hasMessageContaining("needs cleanup.policy=compact");
  }

  @Test
  void aTopicWithSeveralPartitionsIsRefusedWithAClearError() throws Exception {
    String topic = freshTopic();
    admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1).configs(Map.of("cleanup.policy", "compact"))))
        .all().get(10, TimeUnit.SECONDS);

    assertThatThrownBy(() -> new OpenLog(topic).open())
        .hasMessageContaining("Kafka topic " + topic + " has 3 partitions; the broker needs exactly one");
  }

  @Test
  void aRecordOfSeveralMebibytesIsWrittenAndReplayedWhole() throws Exception {
    String topic = freshTopic();
    OpenLog writer;
    try (CapturedLog warnings = CapturedLog.of(KafkaTopic.class)) {
      writer = new OpenLog(topic).open();
      assertThat(warnings.events()).as("a topic the broker creates takes its records")
          .noneMatch(line -> line.getLevel() == Level.WARN);
    }
    String large = "{\"text\":\"" + "x".repeat(5 * 1024 * 1024) + "\"}";

    long position = writer.append("large", large);

    OpenLog late = new OpenLog(topic).open();
    assertThat(position).isEqualTo(1);
    assertThat(late.seen).singleElement().isEqualTo("1:" + large);
    writer.close();
    late.close();
  }

  @Test
  void aRecordLargerThanMaxRecordBytesIsRefusedAsTooLargeAndTheLogGoesOn() throws Exception {
    String topic = freshTopic();
    OpenLog log = new OpenLog(settings(topic, new JsonObject().put("maxRecordBytes", KafkaLogSettings.MIN_RECORD_BYTES)))
        .open();

    assertThatThrownBy(() -> log.append("large", "x".repeat(2 * 1024 * 1024)))
        .isInstanceOf(LogRecordTooLargeException.class)
        .hasMessageContaining("larger than Kafka topic " + topic + " takes (at most 1048576 bytes, kafka.maxRecordBytes");
    assertThat(log.append("small", "{\"n\":1}")).as("the next write goes through").isEqualTo(1);
    log.close();
  }

  @Test
  void aTopicMadeElsewhereThatTakesSmallerRecordsRefusesLargerOnesAsTooLarge() throws Exception {
    String topic = freshTopic();
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)
            .configs(Map.of("cleanup.policy", "compact", "max.message.bytes", "1048588"))))
        .all().get(10, TimeUnit.SECONDS);
    OpenLog log;
    try (CapturedLog warnings = CapturedLog.of(KafkaTopic.class)) {
      log = new OpenLog(topic).open();
      assertThat(warnings.events()).filteredOn(line -> line.getLevel() == Level.WARN).singleElement().satisfies(line -> assertThat(line.getFormattedMessage()).isEqualTo(
          "Kafka topic " + topic + " takes records up to 1048588 bytes (max.message.bytes), less than kafka.maxRecordBytes"
              + " (16777216); larger writes get 413. Raise it with kafka-configs.sh --alter --entity-type topics"
              + " --entity-name " + topic + " --add-config max.message.bytes=16777216"));
    }

    assertThatThrownBy(() -> log.append("large", "x".repeat(2 * 1024 * 1024)))
        .isInstanceOf(LogRecordTooLargeException.class)
        .hasMessageEndingWith("The request included a message larger than the max message size the server will accept.");
    assertThat(log.append("small", "{\"n\":1}")).as("the next write goes through").isEqualTo(1);
    log.close();
  }

  @Test
  void maxRecordBytesOrMaxInFlightRequestsOutsideTheirRangesRefuseTheSettings() {
    JsonObject kafka = ConfigLoader.bundledDefaults().getJsonObject("kafka").put("topic", "t");

    assertThatThrownBy(() -> KafkaLogSettings.from(kafka.copy().put("maxRecordBytes", 1000), "topic"))
        .hasMessage("kafka.maxRecordBytes must be 1048576 to 67108864, not 1000");
    assertThatThrownBy(() -> KafkaLogSettings.from(kafka.copy().put("maxRecordBytes", 100_000_000), "topic"))
        .hasMessage("kafka.maxRecordBytes must be 1048576 to 67108864, not 100000000");
    // The idempotent producer keeps the order of at most five requests in flight.
    assertThatThrownBy(() -> KafkaLogSettings.from(kafka.copy().put("maxInFlightRequests", 0), "topic"))
        .hasMessage("kafka.maxInFlightRequests must be 1 to 5, not 0");
    assertThatThrownBy(() -> KafkaLogSettings.from(kafka.copy().put("maxInFlightRequests", 6), "topic"))
        .hasMessage("kafka.maxInFlightRequests must be 1 to 5, not 6");
  }

  /**
   * A topic whose writes Kafka cannot acknowledge (two in-sync copies asked of a one-broker cluster: the producer
   * retries them until the delivery timeout) holds them in the producer's buffer; once that is full, the next append
   * fails at once, while the ones before it still wait, instead of holding the event loop.
   */
  @Test
  void anAppendTheProducersBufferHasNoRoomForFailsAtOnceAsUnavailable() throws Exception {
    String topic = freshTopic();
    admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(Map.of("cleanup.policy", "compact",
            "min.insync.replicas", "2", "max.message.bytes", "16777216"))))
        .all().get(10, TimeUnit.SECONDS);
    KafkaLogSettings settings = settings(topic, new JsonObject().put("deliveryTimeoutMillis", 10_000L));
    OpenLog log = new OpenLog(settings).open();
    String fifteenMebibytes = "x".repeat(15 * 1024 * 1024);

    List<Future<Long>> waiting = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String key = "large-" + i;
      waiting.add(OnContext.run(log.context, () -> log.log.append(key, fifteenMebibytes.getBytes(StandardCharsets.UTF_8))));
    }
    assertThatThrownBy(() -> log.append("one-more", fifteenMebibytes))
        .isInstanceOf(LogUnavailableException.class)
        .hasMessage("Kafka has not taken the writes already waiting for it (" + settings.producerBufferBytes()
            + " bytes, the most this replica holds for the topic)");
    assertThat(waiting).as("the writes before it still wait for Kafka").noneMatch(Future::isComplete);
    log.close();
  }
}
