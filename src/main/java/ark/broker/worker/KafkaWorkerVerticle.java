package ark.broker.worker;

import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.WorkerStatus;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.kafka.client.consumer.KafkaReadStream;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Set;

/**
 * With replicas, the worker is the member of the consumer group that owns partition 0: Kafka elects
 * it, and moves the role when that replica leaves or goes silent. A replica that loses contact with
 * the group stops working before the group could have handed the role to another, and works again
 * once it is back and still the owner. The work itself is level-triggered from the view, so a new
 * worker finishes what the last one left.
 */
public final class KafkaWorkerVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaWorkerVerticle.class);

  private final KafkaWorkerSettings settings;
  private final MeterRegistry meters;
  private Consumer<String, byte[]> kafka;
  private KafkaReadStream<String, byte[]> member;
  private boolean owner;
  private boolean inContact = true;
  private volatile boolean active;

  public KafkaWorkerVerticle(KafkaWorkerSettings settings, MeterRegistry meters) {
    this.settings = settings;
    this.meters = meters;
  }

  @Override
  public Future<?> start() {
    Gauge.builder("ark_broker_worker", () -> active ? 1 : 0)
        .description("1 while this replica does the once-only work (expiry, Query status, channel delivery)")
        .register(meters);
    kafka = new KafkaConsumer<>(settings.consumer(), new StringDeserializer(), new ByteArrayDeserializer());
    member = KafkaReadStream.create(vertx, kafka);
    member.partitionsAssignedHandler(partitions -> {
      if (partitions.contains(settings.ownedPartition())) {
        member.pause(Set.of(settings.ownedPartition()));
        owner = true;
        decide();
      }
    });
    member.partitionsRevokedHandler(partitions -> {
      if (partitions.contains(settings.ownedPartition())) {
        owner = false;
        decide();
      }
    });
    member.exceptionHandler(failure -> LOG.warn("Worker group {}: {}", settings.group(), failure.getMessage()));
    // Records are never wanted (the partition is paused); polling is what keeps the membership.
    member.handler(record -> { });
    vertx.setPeriodic(Math.max(100, settings.contactLostAfterMillis() / 4), tick -> {
      inContact = heartbeatAgeMillis() < settings.contactLostAfterMillis();
      decide();
    });
    return vertx.eventBus()
        .localConsumer(Addresses.WORKER_STATUS, message -> message.reply(new WorkerStatus(active)))
        .completion()
        .compose(registered -> member.subscribe(Set.of(settings.topic())));
  }

  @Override
  public Future<?> stop() {
    // Leaving the group at once hands the role over without waiting for the session timeout.
    return member.close();
  }

  private void decide() {
    boolean now = owner && inContact;
    if (now == active) {
      return;
    }
    active = now;
    if (now) {
      LOG.info("This replica is the worker now (it owns partition 0 of {} in group {})", settings.topic(), settings.group());
    } else if (owner) {
      LOG.warn("This replica stopped working: it has not reached Kafka's group {} for {} ms, so another replica may"
          + " be the worker now", settings.group(), settings.contactLostAfterMillis());
    } else {
      LOG.info("This replica is no longer the worker (group {} moved the role)", settings.group());
    }
    vertx.eventBus().publish(Addresses.WORKER_CHANGED, new WorkerStatus(now));
  }

  /** Since this member last sent the group a heartbeat; Kafka counts in whole seconds. */
  private long heartbeatAgeMillis() {
    for (Map.Entry<MetricName, ? extends Metric> metric : kafka.metrics().entrySet()) {
      if (metric.getKey().name().equals("last-heartbeat-seconds-ago")
          && metric.getKey().group().equals("consumer-coordinator-metrics")) {
        double seconds = ((Number) metric.getValue().metricValue()).doubleValue();
        return seconds < 0 ? 0 : (long) (seconds * 1000);
      }
    }
    return 0;
  }
}
