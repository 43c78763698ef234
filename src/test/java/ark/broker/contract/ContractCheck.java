package ark.broker.contract;

/**
 * What every contract check needs: the broker under test. A runner implements the contract interfaces
 * ({@link ArkBrokerContract} for all of them) and returns the same broker from every call.
 */
public interface ContractCheck {
  BrokerUnderTest broker();

  /** The replica single-replica checks run on. */
  default ArkHttp ark() {
    return broker().first();
  }
}
