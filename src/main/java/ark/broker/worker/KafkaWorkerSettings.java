package ark.broker.worker;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.vertx.core.json.JsonObject;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.Map;

/**
 * How replicas elect the worker, from the {@code kafka} section of the configuration.
 *
 * @param topic whose partition 0 the worker owns (the questions topic: it always exists)
 * @param group the consumer group the replicas join
 * @param sessionTimeoutMillis how long the group waits for a silent replica before it moves the role
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record KafkaWorkerSettings(String bootstrapServers, @JsonProperty("questionsTopic") String topic,
                                  @JsonProperty("workerGroup") String group,
                                  @JsonProperty("workerSessionTimeoutMillis") long sessionTimeoutMillis,
                                  long requestTimeoutMillis) {

  /** Binds the keys of the {@code kafka} section that the election uses. */
  public static KafkaWorkerSettings from(JsonObject kafka) {
    return kafka.mapTo(KafkaWorkerSettings.class);
  }

  /** A replica that has not reached the group for this long stops working: the group may have moved the role. */
  /** The partition whose owner is the worker. */
  TopicPartition ownedPartition() {
    return new TopicPartition(topic, 0);
  }

  long contactLostAfterMillis() {
    return sessionTimeoutMillis / 2;
  }

  /**
   * A member that joins, and pauses the partition it gets: it only holds the role. Sticky assignment
   * keeps the role where it is when replicas join.
   */
  Map<String, Object> consumer() {
    Map<String, Object> config = new HashMap<>();
    config.put("bootstrap.servers", bootstrapServers);
    config.put("group.id", group);
    config.put("client.id", "ark-broker-worker");
    config.put("enable.auto.commit", false);
    config.put("auto.offset.reset", "latest");
    config.put("allow.auto.create.topics", false);
    config.put("partition.assignment.strategy", CooperativeStickyAssignor.class.getName());
    config.put("session.timeout.ms", (int) sessionTimeoutMillis);
    config.put("heartbeat.interval.ms", (int) Math.max(100, sessionTimeoutMillis / 5));
    config.put("request.timeout.ms", (int) Math.min(requestTimeoutMillis, Math.max(1000, sessionTimeoutMillis / 3)));
    return config;
  }
}
