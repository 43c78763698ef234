/**
 * The black-box contract of Ark's broker (the routes upstream ark-broker 0.1.67 serves to Ark's executors,
 * controller, ark-api and dashboard), runnable against any base URL: this broker, or upstream's for comparison.
 *
 * <ul>
 *   <li>One interface per store, each check a default method: {@link ark.broker.contract.GeneralContract},
 *   {@link ark.broker.contract.MemoryContract}, {@link ark.broker.contract.StreamContract},
 *   {@link ark.broker.contract.EventsContract}, {@link ark.broker.contract.SessionsContract},
 *   {@link ark.broker.contract.TracesContract}, {@link ark.broker.contract.ReplicasContract}; all of them in
 *   {@link ark.broker.contract.ArkBrokerContract}. A runner implements one and returns the
 *   {@link ark.broker.contract.BrokerUnderTest} (one base URL, or two replicas of one broker).</li>
 *   <li>Checks of what issues 26 and 27 ask beyond upstream carry {@link ark.broker.contract.BeyondUpstream} (tag
 *   {@code beyond-upstream}, with what upstream does instead); those that need two replicas carry
 *   {@link ark.broker.contract.AcrossReplicas} (tag {@code two-replicas}, skipped with one base URL).</li>
 *   <li>{@link ark.broker.contract.ExternalBrokerContractTest} runs them against {@code -Dark.contract.baseUrl}
 *   (and {@code -Dark.contract.baseUrl2}); without it, it is skipped.</li>
 *   <li>Checks use ids of their own and wait on what they read (no sleeps); some purge whole stores, so the broker
 *   under test is theirs alone. The idle-watch heartbeat checks wait up to 35 s (upstream's interval is 30 s;
 *   {@link ark.broker.contract.BrokerUnderTest#heartbeatWithin} shortens that for a broker configured faster).</li>
 * </ul>
 */
package ark.broker.contract;
