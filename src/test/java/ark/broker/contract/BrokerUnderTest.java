package ark.broker.contract;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The broker a contract check runs against: one replica's base URL, or two replicas of the same broker (sharing
 * their stores) for the cross-replica checks, and what the checks may expect of it where upstream's figures are not
 * a contract (how soon an idle watch sends a heartbeat, how large a body it refuses).
 */
public final class BrokerUnderTest {
  /** Upstream sends {@code : heartbeat} every 30 s. */
  static final Duration UPSTREAM_HEARTBEAT_WITHIN = Duration.ofSeconds(35);
  /** Upstream's body limit is 10 MB; a drop-in refuses at least what upstream refuses. */
  static final long UPSTREAM_OVERSIZED_BODY_BYTES = 11L * 1024 * 1024;

  private final List<ArkHttp> replicas;
  private final Duration heartbeatWithin;
  private final long oversizedBodyBytes;

  private BrokerUnderTest(List<ArkHttp> replicas, Duration heartbeatWithin, long oversizedBodyBytes) {
    this.replicas = replicas;
    this.heartbeatWithin = heartbeatWithin;
    this.oversizedBodyBytes = oversizedBodyBytes;
  }

  /** One replica at {@code base} (http://host:port, no trailing path). */
  public static BrokerUnderTest at(URI base) {
    return new BrokerUnderTest(List.of(new ArkHttp(base)), UPSTREAM_HEARTBEAT_WITHIN, UPSTREAM_OVERSIZED_BODY_BYTES);
  }

  /** Two replicas of the same broker: the cross-replica checks run. */
  public static BrokerUnderTest atReplicas(URI first, URI second) {
    return new BrokerUnderTest(List.of(new ArkHttp(first), new ArkHttp(second)), UPSTREAM_HEARTBEAT_WITHIN,
        UPSTREAM_OVERSIZED_BODY_BYTES);
  }

  /** The same broker, whose idle watches send a heartbeat comment within {@code within}. */
  public BrokerUnderTest heartbeatWithin(Duration within) {
    return new BrokerUnderTest(replicas, within, oversizedBodyBytes);
  }

  /** The same broker, which refuses a body of {@code bytes} with 413. */
  public BrokerUnderTest refusesBodiesOf(long bytes) {
    return new BrokerUnderTest(replicas, heartbeatWithin, bytes);
  }

  /** The first replica, where every single-replica check runs. */
  public ArkHttp first() {
    return replicas.get(0);
  }

  /** The other replica; skips the calling check when only one was given. */
  public ArkHttp second() {
    assumeTrue(replicas.size() > 1, "one replica given: the cross-replica checks need a second base URL");
    return replicas.get(1);
  }

  Duration heartbeatWithin() {
    return heartbeatWithin;
  }

  long oversizedBodyBytes() {
    return oversizedBodyBytes;
  }

  @Override
  public String toString() {
    return replicas.stream().map(replica -> replica.base().toString()).toList().toString();
  }
}
