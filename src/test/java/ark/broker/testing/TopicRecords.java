package ark.broker.testing;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What a topic holds right now, read directly with a plain consumer: the tests' view of the truth. */
public final class TopicRecords {
  private TopicRecords() {
  }

  /**
   * One record; {@code value} is null for a tombstone.
   *
   * @param format the record's {@code ark-broker-format} header, or null without one
   */
  public record Entry(long offset, String key, String value, String format) {
  }

  public static List<Entry> read(TestKafka kafka, String topic) {
    TopicPartition partition = new TopicPartition(topic, 0);
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", kafka.bootstrapServers()),
        new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(Set.of(partition));
      consumer.seekToBeginning(Set.of(partition));
      long end = consumer.endOffsets(Set.of(partition)).get(partition);
      List<Entry> entries = new ArrayList<>();
      while (consumer.position(partition) < end) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          Header format = record.headers().lastHeader("ark-broker-format");
          entries.add(new Entry(record.offset(), record.key(),
              record.value() == null ? null : new String(record.value(), StandardCharsets.UTF_8),
              format == null ? null : new String(format.value(), StandardCharsets.US_ASCII)));
        }
      }
      return entries;
    }
  }
}
