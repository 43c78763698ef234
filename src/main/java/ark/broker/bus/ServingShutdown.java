package ark.broker.bus;

import ark.broker.edge.ConnectionLimits;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How a room that serves clients on a port (REST, MCP) stops with the process. Told by
 * {@link Addresses#BROKER_DRAINING}, its responses ask their clients to reconnect, which a load balancer sends to
 * another replica; undeployed, it stops accepting connections, ends the streams its clients resume elsewhere, and
 * gives the requests still running the grace the message named, then closes what is left. A room undeployed
 * without that message (a test closing its broker) closes at once, as before.
 */
public final class ServingShutdown {
  private static final Logger LOG = LoggerFactory.getLogger(ServingShutdown.class);

  private final String surface;
  private volatile boolean draining;
  private volatile long graceMillis;

  /** @param surface the port's section of the settings ({@code http}, {@code mcp}), for the log */
  public ServingShutdown(String surface) {
    this.surface = surface;
  }

  /** Listens for the process stopping; {@code limits} then close each connection after its response. */
  public Future<Void> follow(Vertx vertx, ConnectionLimits limits) {
    return vertx.eventBus().<Messages.Draining>localConsumer(Addresses.BROKER_DRAINING, message -> {
      graceMillis = message.body().graceMillis();
      draining = true;
      limits.closeEachConnectionAfterItsResponse();
    }).completion();
  }

  /** True once the process is stopping: /readyz says so. */
  public boolean draining() {
    return draining;
  }

  /**
   * Stops accepting connections on {@code server}, then runs {@code endStreams} (which ends the streams that
   * clients resume on another replica); completes once every connection has closed, at most the grace later.
   */
  public Future<Void> stop(HttpServer server, Runnable endStreams) {
    if (server == null) {
      endStreams.run();
      return Future.succeededFuture();
    }
    long grace = draining ? graceMillis : 0;
    long started = System.nanoTime();
    Future<Void> closed = server.shutdown(Duration.ofMillis(grace));
    endStreams.run();
    return closed.onComplete(done -> {
      // Vert.x closes what is left when the grace is over; done that late, something was left.
      if (grace > 0 && TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) >= grace) {
        LOG.warn("Closed the {} port's connections whose requests still ran after the shutdown's grace of {} s "
            + "(shutdown.timeoutSeconds); their clients retry elsewhere", surface, grace / 1000.0);
      }
    });
  }
}
