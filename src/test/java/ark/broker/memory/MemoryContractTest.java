package ark.broker.memory;

import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.GeneralContract;
import ark.broker.contract.MemoryContract;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

/** The contract of Ark's broker for conversation memory, against this broker on its embedded log. */
class MemoryContractTest implements MemoryContract, GeneralContract {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject()
      .put("arkApi", new JsonObject().put("heartbeatSeconds", 1).put("bodyLimitBytes", 1024 * 1024)),
      started -> broker = started);

  @Override
  public BrokerUnderTest broker() {
    return BrokerUnderTest.at(broker.base).heartbeatWithin(Duration.ofSeconds(5)).refusesBodiesOf(2 * 1024 * 1024);
  }
}
