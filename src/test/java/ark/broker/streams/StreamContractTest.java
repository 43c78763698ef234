package ark.broker.streams;

import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.StreamContract;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

/** The contract of Ark's broker for LLM streams, against this broker on its embedded log. */
class StreamContractTest implements StreamContract {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject()
      .put("arkApi", new JsonObject().put("heartbeatSeconds", 1))
      // A completion the contract expects 404 for waits this long first.
      .put("streams", new JsonObject().put("completeWaitMillis", 1000)), started -> broker = started);

  @Override
  public BrokerUnderTest broker() {
    return BrokerUnderTest.at(broker.base).heartbeatWithin(Duration.ofSeconds(5));
  }
}
