package ark.broker.events;

import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.EventsContract;
import ark.broker.contract.SessionsContract;
import ark.broker.contract.TracesContract;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

/** The contract of Ark's broker for events, sessions and traces, against this broker on its embedded log. */
class EventsSessionsTracesContractTest implements EventsContract, SessionsContract, TracesContract {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject()
      .put("arkApi", new JsonObject().put("heartbeatSeconds", 1)), started -> broker = started);

  @Override
  public BrokerUnderTest broker() {
    return BrokerUnderTest.at(broker.base).heartbeatWithin(Duration.ofSeconds(5));
  }
}
