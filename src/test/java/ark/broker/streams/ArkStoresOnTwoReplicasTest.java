package ark.broker.streams;

import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.EventsContract;
import ark.broker.contract.MemoryContract;
import ark.broker.contract.ReplicasContract;
import ark.broker.contract.SessionsContract;
import ark.broker.contract.StreamContract;
import ark.broker.contract.TracesContract;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestKafka;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The contract of Ark's broker for memory, streams, events, sessions and traces against two replicas of this broker sharing the tests' Kafka:
 * every check runs on the first, and the cross-replica checks write on one and read or watch on the other.
 */
class ArkStoresOnTwoReplicasTest
    implements MemoryContract, StreamContract, EventsContract, SessionsContract, TracesContract, ReplicasContract {
  @TempDir
  static Path dataDir;
  static TestBroker a;
  static TestBroker b;

  @BeforeAll
  static void startReplicas() throws Exception {
    JsonObject cluster = TestKafka.shared().cluster().put("arkApi", new JsonObject().put("heartbeatSeconds", 1))
        // A completion the contract expects 404 for waits this long first.
        .put("streams", new JsonObject().put("completeWaitMillis", 1000));
    a = TestBroker.start(dataDir.resolve("a"), cluster);
    b = TestBroker.start(dataDir.resolve("b"), cluster);
  }

  @AfterAll
  static void stopReplicas() throws Exception {
    for (TestBroker replica : new TestBroker[] {a, b}) {
      if (replica != null) {
        replica.close();
      }
    }
  }

  @Override
  public BrokerUnderTest broker() {
    return BrokerUnderTest.atReplicas(a.base, b.base).heartbeatWithin(Duration.ofSeconds(5));
  }
}
