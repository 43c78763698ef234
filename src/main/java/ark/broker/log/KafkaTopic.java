package ark.broker.log;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The topic a {@link KafkaEventLog} lives in: created if missing, and refused if it exists but would lose state
 * (keyed state deleted by age, or records only appended compacted by key) or order (more than one partition).
 * Blocking: run on a worker.
 */
final class KafkaTopic {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaTopic.class);

  private KafkaTopic() {
  }

  static void ensure(Admin admin, KafkaLogSettings settings) throws Exception {
    String topic = settings.topic();
    long timeout = settings.setupTimeoutMillis();
    TopicDescription description = describe(admin, settings);
    if (description == null) {
      create(admin, settings);
      description = describeOnceKnown(admin, settings);
    }
    if (description.partitions().size() != 1) {
      throw new IllegalStateException("Kafka topic " + topic + " has " + description.partitions().size()
          + " partitions; the broker needs exactly one, for one order of events (and of resourceVersions) on every"
          + " replica. Delete and recreate it with one partition, or name another topic in the kafka section");
    }
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config config = admin.describeConfigs(List.of(resource)).all().get(timeout, TimeUnit.MILLISECONDS).get(resource);
    recordSizeFits(config, settings);
    ConfigEntry policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
    String value = policy == null ? "delete" : policy.value().replace(" ", "");
    String needed = settings.retention() == null ? TopicConfig.CLEANUP_POLICY_COMPACT : TopicConfig.CLEANUP_POLICY_DELETE;
    if (!needed.equals(value)) {
      throw new IllegalStateException("Kafka topic " + topic + " has cleanup.policy=" + value + "; the broker needs"
          + " cleanup.policy=" + needed + (settings.retention() == null
              ? ", or Kafka deletes questions and sessions by age" : ", or Kafka keeps only the newest record of a key")
          + ". Fix it with kafka-configs.sh --alter --entity-type topics --entity-name " + topic
          + " --add-config cleanup.policy=" + needed + ", or name another topic in the kafka section");
    }
  }

  /**
   * A topic made elsewhere may take smaller records than the broker writes (Kafka's default is 1 MiB): writes larger
   * than the topic takes are refused (413), the rest go on, so this is a warning, not a refusal to start.
   */
  private static void recordSizeFits(Config config, KafkaLogSettings settings) {
    ConfigEntry entry = config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
    if (entry != null && entry.value() != null && Long.parseLong(entry.value()) < settings.maxRecordBytes()) {
      LOG.warn("Kafka topic {} takes records up to {} bytes (max.message.bytes), less than kafka.maxRecordBytes ({});"
          + " larger writes get 413. Raise it with kafka-configs.sh --alter --entity-type topics --entity-name {}"
          + " --add-config max.message.bytes={}", settings.topic(), entry.value(), settings.maxRecordBytes(),
          settings.topic(), settings.maxRecordBytes());
    }
  }

  /** A topic just created takes a moment to reach every Kafka broker's metadata. */
  private static TopicDescription describeOnceKnown(Admin admin, KafkaLogSettings settings) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.setupTimeoutMillis());
    for (long pause = 10; ; pause = Math.min(pause * 2, 500)) {
      TopicDescription description = describe(admin, settings);
      if (description != null) {
        return description;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Kafka topic " + settings.topic() + " was created but is still unknown after "
            + settings.setupTimeoutMillis() + " ms");
      }
      Thread.sleep(pause);
    }
  }

  /** The topic, or null if it does not exist. */
  private static TopicDescription describe(Admin admin, KafkaLogSettings settings) throws Exception {
    try {
      return admin.describeTopics(List.of(settings.topic())).allTopicNames()
          .get(settings.setupTimeoutMillis(), TimeUnit.MILLISECONDS).get(settings.topic());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return null;
      }
      throw unreachable(settings, e);
    } catch (TimeoutException e) {
      throw unreachable(settings, e);
    }
  }

  private static void create(Admin admin, KafkaLogSettings settings) throws Exception {
    Optional<Short> replication = settings.replicationFactor() > 0
        ? Optional.of((short) settings.replicationFactor()) : Optional.empty();
    KafkaLogSettings.Retention retention = settings.retention();
    Map<String, String> configs = new HashMap<>(retention == null
        ? Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
            TopicConfig.MIN_COMPACTION_LAG_MS_CONFIG, Long.toString(settings.minCompactionLagMillis()))
        : Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
            TopicConfig.RETENTION_MS_CONFIG, Long.toString(retention.millis()),
            TopicConfig.RETENTION_BYTES_CONFIG, Long.toString(retention.bytes())));
    configs.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(settings.maxRecordBytes()));
    NewTopic topic = new NewTopic(settings.topic(), Optional.of(1), replication).configs(configs);
    try {
      admin.createTopics(List.of(topic)).all().get(settings.setupTimeoutMillis(), TimeUnit.MILLISECONDS);
      LOG.info("Created Kafka topic {} (one partition, {})", settings.topic(), retention == null ? "compacted"
          : "records kept " + retention.millis() / 1000 + " s and " + retention.bytes() + " bytes");
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("Kafka topic " + settings.topic() + " could not be created: "
            + e.getCause().getMessage(), e.getCause());
      }
      // Another replica created it at the same time.
    }
  }

  private static IllegalStateException unreachable(KafkaLogSettings settings, Exception e) {
    Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
    return new IllegalStateException("Kafka at " + settings.bootstrapServers() + " did not describe topic "
        + settings.topic() + " within " + settings.setupTimeoutMillis() + " ms: " + cause, cause);
  }
}
