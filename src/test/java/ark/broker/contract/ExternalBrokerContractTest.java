package ark.broker.contract;

import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.net.URI;

/**
 * The contract against a broker already running elsewhere, for instance upstream's ark-broker for comparison:
 * <pre>
 * mvn test -Dtest=ExternalBrokerContractTest -Dark.contract.baseUrl=http://127.0.0.1:8090 \
 *     [-Dark.contract.baseUrl2=http://127.0.0.1:8091] [-DexcludedGroups=beyond-upstream]
 * </pre>
 * {@code baseUrl2} is another replica of the same broker (the cross-replica checks skip without it). The checks write
 * and purge data: point them at a broker of their own. Skipped, saying why, when no URL is given.
 */
@EnabledIfSystemProperty(named = ExternalBrokerContractTest.BASE_URL, matches = ".+",
    disabledReason = "no external broker: -D" + ExternalBrokerContractTest.BASE_URL + "=http://host:port runs the"
        + " contract against one")
class ExternalBrokerContractTest implements ArkBrokerContract {
  static final String BASE_URL = "ark.contract.baseUrl";
  static final String BASE_URL_2 = "ark.contract.baseUrl2";

  private final BrokerUnderTest broker = brokerFromProperties();

  private static BrokerUnderTest brokerFromProperties() {
    String first = System.getProperty(BASE_URL);
    String second = System.getProperty(BASE_URL_2, "");
    if (first == null || first.isBlank()) {
      return null;
    }
    return second.isBlank() ? BrokerUnderTest.at(URI.create(first))
        : BrokerUnderTest.atReplicas(URI.create(first), URI.create(second));
  }

  @Override
  public BrokerUnderTest broker() {
    return broker;
  }
}
