package ark.broker.bus;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * Whether a room that serves clients on a port (REST, MCP) still waits for the start-up warm-up. Its port opens
 * as soon as the broker has started, so probes and clients get an answer at once: while it warms, /readyz and every
 * request are answered 503 with {@code Retry-After}, and liveness probes 200; {@link Addresses#BROKER_WARMED} ends
 * it. A room started warm (tests, {@code warmUp.seconds} 0) serves at once.
 */
public final class WarmUpGate {
  /** What a client is told to wait before it asks again: the warm-up's end is at most a few seconds away. */
  public static final int RETRY_AFTER_SECONDS = 1;
  public static final String WARMING = "warming up: this broker compiles its request path before serving "
      + "(warmUp.seconds); retry in " + RETRY_AFTER_SECONDS + " s";

  private volatile boolean warming;

  public WarmUpGate(boolean warming) {
    this.warming = warming;
  }

  /** Listens for the end of the warm-up; complete once listening, so a room deployed before it cannot miss it. */
  public Future<Void> follow(Vertx vertx) {
    if (!warming) {
      return Future.succeededFuture();
    }
    return vertx.eventBus().localConsumer(Addresses.BROKER_WARMED, warmed -> warming = false).completion();
  }

  /** What a request is answered while the broker warms: 503, {@code Retry-After}, and why. */
  public static StoreFailure refusal() {
    return new StoreFailure(StoreFailure.Reason.UNAVAILABLE, WARMING, RETRY_AFTER_SECONDS);
  }

  /** True until the warm-up is done. */
  public boolean warming() {
    return warming;
  }
}
