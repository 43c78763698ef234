package ark.broker.testing;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * Tests against three whole brokers in this JVM (each its own Vert.x, ports and data directory)
 * sharing fresh topics of the test Kafka: replicas {@link #a}, {@link #b} and {@link #c}.
 */
public abstract class OnThreeReplicas {
  @TempDir
  protected static Path dataDir;
  protected static TestBroker a;
  protected static TestBroker b;
  protected static TestBroker c;

  @BeforeAll
  static void startReplicas() throws Exception {
    JsonObject cluster = TestKafka.shared().cluster();
    a = TestBroker.start(dataDir.resolve("a"), cluster);
    b = TestBroker.start(dataDir.resolve("b"), cluster);
    c = TestBroker.start(dataDir.resolve("c"), cluster);
  }

  @AfterAll
  static void stopReplicas() throws Exception {
    for (TestBroker replica : new TestBroker[] {a, b, c}) {
      if (replica != null) {
        replica.close();
      }
    }
    a = null;
    b = null;
    c = null;
  }
}
