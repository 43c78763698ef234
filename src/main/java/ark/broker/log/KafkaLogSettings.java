package ark.broker.log;

import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.Map;

/**
 * How a {@link KafkaEventLog} reaches its topic, from the {@code kafka} section of the configuration.
 *
 * @param replicationFactor for a topic the broker creates; -1 leaves it to the Kafka cluster's default
 * @param minCompactionLagMillis for a topic the broker creates: how long records stay before compaction
 *     may drop them, which is how long a watcher can resume and a lost race can be repaired
 * @param requestTimeoutMillis how long one request to Kafka may take
 * @param deliveryTimeoutMillis how long an append may take in all, retries included, before it fails
 * @param lingerMillis how long the producer holds an append for others to share its produce request
 * @param maxInFlightRequests produce requests sent before the first is answered; appends made while they are out
 *     wait and share the next
 * @param catchUpTimeoutMillis how long a replica waits to catch up before it answers from what it has
 * @param maxRecordBytes the largest record written to the topic, as Kafka counts it (the producer's
 *     {@code max.request.size}, and the {@code max.message.bytes} of a topic the broker creates)
 * @param retention null for a topic of keyed state, which Kafka compacts (questions, sessions); else how long and
 *     how much a topic that is only appended to keeps, which Kafka deletes by age and size
 */
public record KafkaLogSettings(String bootstrapServers, String topic, int replicationFactor,
                               long minCompactionLagMillis, long requestTimeoutMillis, long deliveryTimeoutMillis,
                               long lingerMillis, int maxInFlightRequests, long catchUpTimeoutMillis,
                               int maxRecordBytes, Retention retention) {

  /**
   * What Kafka keeps of a topic that is only appended to: somewhat more than the store's own retention, so a
   * replica that replays finds everything the others still hold (the store drops records itself, in the same way
   * on every replica; Kafka only reclaims the space after it).
   */
  public record Retention(long millis, long bytes) {
  }

  /** Kafka's own default: no topic the broker writes takes less. */
  static final int MIN_RECORD_BYTES = 1024 * 1024;
  /** A bound on the setting: every replica and Kafka broker holds records this large in memory while they pass. */
  static final int MAX_RECORD_BYTES = 64 * 1024 * 1024;
  /** The idempotent producer keeps the order of at most this many requests in flight. */
  static final int MAX_IN_FLIGHT_REQUESTS = 5;
  /** Kafka's default buffer for writes waiting to be sent; larger when the largest record asks for it. */
  private static final long PRODUCER_BUFFER_BYTES = 32L * 1024 * 1024;

  public KafkaLogSettings {
    within("maxRecordBytes", maxRecordBytes, MIN_RECORD_BYTES, MAX_RECORD_BYTES);
    within("maxInFlightRequests", maxInFlightRequests, 1, MAX_IN_FLIGHT_REQUESTS);
  }

  private static void within(String key, int value, int least, int most) {
    if (value < least || value > most) {
      throw new IllegalArgumentException("kafka." + key + " must be " + least + " to " + most + ", not " + value);
    }
  }

  /** A century: the producer keeps the topic's metadata for as long as the broker runs. */
  private static final long METADATA_KEPT_MILLIS = 36_500L * 24 * 60 * 60 * 1000;

  /** @param topicKey the key in the {@code kafka} section that names this log's topic, a compacted one */
  public static KafkaLogSettings from(JsonObject kafka, String topicKey) {
    return from(kafka, topicKey, null);
  }

  /** @param retention how long and how much Kafka keeps of a topic that is only appended to */
  public static KafkaLogSettings from(JsonObject kafka, String topicKey, Retention retention) {
    return new KafkaLogSettings(
        kafka.getString("bootstrapServers"),
        kafka.getString(topicKey),
        kafka.getInteger("replicationFactor"),
        kafka.getLong("minCompactionLagMillis"),
        kafka.getLong("requestTimeoutMillis"),
        kafka.getLong("deliveryTimeoutMillis"),
        kafka.getLong("lingerMillis"),
        kafka.getInteger("maxInFlightRequests"),
        kafka.getLong("catchUpTimeoutMillis"),
        kafka.getInteger("maxRecordBytes"),
        retention);
  }

  /** Setting up the topic at start may wait for a cluster that is still starting. */
  long setupTimeoutMillis() {
    return Math.max(10_000L, 5 * requestTimeoutMillis);
  }

  /**
   * The writes the producer holds while Kafka has not taken them, at least two of the largest records; beyond it an
   * append fails at once.
   */
  long producerBufferBytes() {
    return Math.max(PRODUCER_BUFFER_BYTES, 2L * maxRecordBytes);
  }

  Map<String, Object> admin() {
    Map<String, Object> config = common();
    config.put("default.api.timeout.ms", (int) setupTimeoutMillis());
    return config;
  }

  /**
   * Idempotent, acknowledged by every in-sync replica: a write that succeeds is in the log once and
   * survives the loss of a Kafka broker (with min.insync.replicas above 1).
   */
  Map<String, Object> producer() {
    Map<String, Object> config = common();
    config.put("acks", "all");
    config.put("enable.idempotence", true);
    config.put("linger.ms", (int) lingerMillis);
    // Appends are pipelined (each waits for its own acknowledgement, not for the one before it). With no linger an
    // append goes at once unless maxInFlightRequests are out, and those made meanwhile share the next request: a busy
    // replica sends a few requests per round trip, each carrying all that arrived meanwhile.
    config.put("max.in.flight.requests.per.connection", maxInFlightRequests);
    config.put("batch.size", 256 * 1024);
    config.put("max.request.size", maxRecordBytes);
    config.put("buffer.memory", producerBufferBytes());
    // Sends come from the event loop and must never wait there: a full buffer fails the append at once, and the
    // topic's metadata, loaded when the log opens, is kept however long the topic sees no write.
    config.put("max.block.ms", 0);
    config.put("metadata.max.idle.ms", METADATA_KEPT_MILLIS);
    config.put("delivery.timeout.ms", (int) Math.max(deliveryTimeoutMillis, requestTimeoutMillis + lingerMillis));
    return config;
  }

  /** Reads the whole partition itself: no group, nothing committed, never creates a topic. */
  Map<String, Object> consumer() {
    Map<String, Object> config = common();
    config.put("enable.auto.commit", false);
    config.put("auto.offset.reset", "earliest");
    config.put("allow.auto.create.topics", false);
    // Bounds how long the reader may wait on Kafka in one call (after a leader change it revalidates its
    // position), so it goes on reading soon after Kafka is back.
    config.put("default.api.timeout.ms", (int) requestTimeoutMillis);
    config.put("max.poll.records", 2000);
    // Kafka holds a fetch that finds nothing new until a record arrives or this long has passed: an idle replica
    // asks once a second instead of twice, and a record still reaches it as soon as Kafka has it.
    config.put("fetch.max.wait.ms", (int) Math.min(1000, requestTimeoutMillis / 2));
    return config;
  }

  private Map<String, Object> common() {
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", bootstrapServers);
    config.put("request.timeout.ms", (int) requestTimeoutMillis);
    config.put("client.id", "ark-broker-" + topic);
    return config;
  }
}
