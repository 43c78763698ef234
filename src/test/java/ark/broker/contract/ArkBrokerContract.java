package ark.broker.contract;

/**
 * The whole contract of Ark's broker (upstream ark-broker 0.1.67's routes as Ark's callers use them, plus what issues
 * 26 and 27 ask beyond it), against any base URL. A runner implements it and returns the broker under test:
 * <pre>{@code
 * class EmbeddedBrokerContractTest implements ArkBrokerContract {
 *   static TestBroker broker;
 *   @RegisterExtension
 *   static final BrokerExtension lifecycle = new BrokerExtension(started -> broker = started);
 *
 *   @Override
 *   public BrokerUnderTest broker() {
 *     return BrokerUnderTest.at(broker.base);
 *   }
 * }
 * }</pre>
 * A store implemented on its own can run its part alone by implementing that interface instead ({@link MemoryContract},
 * {@link StreamContract}, {@link EventsContract}, {@link SessionsContract}, {@link TracesContract}); the cross-replica
 * checks ({@link ReplicasContract}) run when {@link BrokerUnderTest#atReplicas} names two replicas.
 */
public interface ArkBrokerContract extends GeneralContract, MemoryContract, StreamContract, EventsContract,
    SessionsContract, TracesContract, ReplicasContract {
}
