package ark.broker.testing;

import org.testcontainers.kafka.KafkaContainer;

/**
 * The Kafka broker in a container (apache/kafka, the image docker-compose.yml runs). Stopping it
 * freezes the container, so it keeps its port and data, and clients see it unreachable.
 */
public final class ContainerKafka implements TestKafka, AutoCloseable {
  private final KafkaContainer container;

  private ContainerKafka(KafkaContainer container) {
    this.container = container;
  }

  static ContainerKafka launch() {
    KafkaContainer container = new KafkaContainer("apache/kafka:4.2.0")
        .withEnv("KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS", "1000")
        .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
        .withEnv("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false")
        .withEnv("KAFKA_LOG_CLEANER_BACKOFF_MS", "100");
    container.start();
    return new ContainerKafka(container);
  }

  @Override
  public String bootstrapServers() {
    return container.getBootstrapServers();
  }

  @Override
  public void stop() {
    container.getDockerClient().pauseContainerCmd(container.getContainerId()).exec();
  }

  @Override
  public void start() {
    container.getDockerClient().unpauseContainerCmd(container.getContainerId()).exec();
  }

  @Override
  public void close() {
    container.stop();
  }
}
