package ark.broker.kube;

import ark.broker.testing.TestBroker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * Tests of a whole broker against a {@link MockCluster}: each test gets a fresh cluster, and fails if the broker
 * (or the test playing Ark's controllers) wrote anything the CRDs' schemas refuse.
 */
abstract class AgainstMockCluster {
  @TempDir
  Path dir;
  MockCluster cluster;
  /** The broker under test, closed after the test if it is set. */
  TestBroker broker;

  /** The cluster the tests run against: Ark's CRDs as shipped unless a test class says otherwise. */
  MockCluster newCluster() {
    return MockCluster.stock();
  }

  @BeforeEach
  void startCluster() {
    cluster = newCluster();
  }

  @AfterEach
  void stopBrokerAndCluster() throws Exception {
    if (broker != null) {
      broker.close();
    }
    cluster.assertEveryWriteMatchedItsSchema();
    cluster.close();
  }
}
