package ark.broker.testing;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.apache.kafka.clients.admin.Admin;
import org.testcontainers.DockerClientFactory;

import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * A real Kafka broker for the tests, one per test JVM, shared by every test class: in a container
 * where a Docker daemon runs, else a broker process started from the Kafka jars on the test class
 * path. {@code -Dkafka.broker=forked|container} chooses.
 */
public interface TestKafka {
  String bootstrapServers();

  /** Kafka goes away (the process is killed, the container frozen); clients see it unreachable. */
  void stop() throws Exception;

  /** Kafka comes back where it was, with everything it had acknowledged. */
  void start() throws Exception;

  /** The Kafka broker's process, where it is one on this machine (for its CPU time); empty in a container. */
  default OptionalLong pid() {
    return OptionalLong.empty();
  }

  default Admin admin() {
    return Admin.create(Map.of("bootstrap.servers", bootstrapServers()));
  }

  /**
   * The configuration for replicas that share state through this broker: topics and group named for
   * this one cluster of replicas, so it starts empty; the worker role moves within seconds.
   */
  default JsonObject cluster() {
    String prefix = "ark-test-" + UUID.randomUUID().toString().substring(0, 8);
    return new JsonObject().put("kafka", new JsonObject()
        .put("bootstrapServers", bootstrapServers())
        .put("questionsTopic", prefix + ".questions")
        .put("sessionsTopic", prefix + ".sessions")
        .put("memoryTopic", prefix + ".memory")
        .put("streamsTopic", prefix + ".streams")
        .put("eventsTopic", prefix + ".events")
        .put("tracesTopic", prefix + ".traces")
        .put("workerGroup", prefix + ".workers")
        .put("workerSessionTimeoutMillis", 3000L))
        // One key for the cluster's replicas, as an operator gives them: a stream cut on one resumes on another.
        .put("mcp", new JsonObject().put("streamTokenKeys", new JsonArray().add(prefix + "-stream-token-key-0123456789abcdef")));
  }

  static TestKafka shared() {
    return Shared.INSTANCE;
  }

  /** Started on first use, stopped when the JVM exits. */
  final class Shared {
    private static final TestKafka INSTANCE = startShared();

    private Shared() {
    }

    private static TestKafka startShared() {
      String flavour = System.getProperty("kafka.broker", "");
      try {
        TestKafka kafka = flavour.equals("container") || (flavour.isEmpty() && dockerAvailable())
            ? ContainerKafka.launch() : ForkedKafka.launch();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
          try {
            ((AutoCloseable) kafka).close();
          } catch (Exception ignored) {
            // the JVM is exiting anyway
          }
        }, "test-kafka-stop"));
        return kafka;
      } catch (Exception e) {
        throw new IllegalStateException("Could not start a Kafka broker for the tests", e);
      }
    }

    private static boolean dockerAvailable() {
      if (System.getenv("DOCKER_HOST") == null && !java.nio.file.Files.exists(java.nio.file.Path.of("/var/run/docker.sock"))) {
        return false; // asking Testcontainers would only log an error saying so
      }
      try {
        return DockerClientFactory.instance().isDockerAvailable();
      } catch (RuntimeException | LinkageError e) {
        return false;
      }
    }
  }
}
