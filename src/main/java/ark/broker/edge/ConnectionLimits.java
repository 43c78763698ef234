package ark.broker.edge;

import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.shareddata.Shareable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What one port lets its clients hold ({@link ServerLimits}): connections in total and per client
 * address (one over a cap is closed at once), how long a connection may take to send a request's line
 * and headers (slowloris), the idle timeout, and the request line and header sizes (414 and 431 with the
 * port's JSON error and one WARN line). Refusals under a flood are logged at most once per period.
 * <p>
 * A connection must send its first request's headers within {@code headerTimeoutSeconds} of opening.
 * Between requests on a kept-alive connection it has the idle timeout (at least the header timeout) to
 * send the next one's: Vert.x does not tell when a request's first byte arrives, so a client that trickles
 * the headers of a later request is cut then, even though each byte resets the idle timeout.
 * <p>
 * Every event loop serving a port uses the port's one instance ({@link #shared}), so the caps count the
 * whole port; each connection's own state stays on its event loop.
 */
public final class ConnectionLimits implements Shareable {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimits.class);

  /**
   * The error body for a refused request, a status and a message, in the format of the routes the request is for
   * (REST error JSON, Ark's broker's, JSON-RPC).
   */
  @FunctionalInterface
  public interface ErrorBody {
    String of(HttpServerRequest request, int status, String message);
  }

  private final ServerLimits limits;
  private final AtomicInteger open = new AtomicInteger();
  private final Map<String, Integer> openByClient = new ConcurrentHashMap<>();
  private final Map<HttpConnection, Tracked> tracked = new ConcurrentHashMap<>();
  private final RateLimitedWarning totalCapReached = new RateLimitedWarning(LOG);
  private final RateLimitedWarning clientCapReached = new RateLimitedWarning(LOG);
  private final RateLimitedWarning headersTooSlow = new RateLimitedWarning(LOG);
  /** Set when the process is stopping: every response from then on asks its client to reconnect. */
  private volatile boolean closing;
  /** Requests the codec could not read or the router could not route (a malformed Host): a flood is one line. */
  private final RateLimitedWarning malformed = new RateLimitedWarning(LoggerFactory.getLogger(MalformedRequests.class));

  private ConnectionLimits(ServerLimits limits) {
    this.limits = limits;
  }

  /** The one instance for the port {@code limits} describe, shared by every verticle instance serving it. */
  public static ConnectionLimits shared(Vertx vertx, ServerLimits limits) {
    return vertx.sharedData().<String, ConnectionLimits>getLocalMap(ConnectionLimits.class.getName())
        .computeIfAbsent(limits.port(), port -> new ConnectionLimits(limits));
  }

  /**
   * An HTTP server for the port with these limits, serving {@code requests} behind
   * {@link MalformedRequests}; refusals use {@code errorBody}. Call it on the verticle's event loop.
   */
  public HttpServer createServer(Vertx vertx, Handler<HttpServerRequest> requests, ErrorBody errorBody) {
    Handler<HttpServerRequest> guarded = new MalformedRequests(requests, errorBody, malformed);
    return vertx.createHttpServer(limits.options())
        .connectionHandler(connection -> opened(vertx, connection))
        .invalidRequestHandler(request -> refuseUndecodable(request, errorBody))
        .requestHandler(request -> {
          Tracked connection = tracked.get(request.connection());
          if (connection != null) {
            connection.requested(request.response());
          }
          if (closing) {
            request.response().putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
            // Closed once this response is sent; the server's own shutdown bounds how long that may take.
            request.connection().shutdown(Duration.ofDays(1));
          }
          guarded.handle(request);
        });
  }

  /**
   * From now on every response says {@code Connection: close}, and the connection closes after it: a client's next
   * request opens a new connection, which a load balancer sends to a replica that is not stopping (a kept-alive
   * one would stay with this one).
   */
  public void closeEachConnectionAfterItsResponse() {
    closing = true;
  }

  private void opened(Vertx vertx, HttpConnection connection) {
    SocketAddress remote = connection.remoteAddress();
    String client = remote == null || remote.hostAddress() == null ? "unknown" : remote.hostAddress();
    if (!reserve(client)) {
      connection.close();
      return;
    }
    Tracked state = new Tracked(vertx, connection, client);
    tracked.put(connection, state);
    connection.closeHandler(closed -> {
      tracked.remove(connection);
      state.closed();
      release(client);
    });
    state.awaitHeaders(limits.headerTimeoutSeconds());
  }

  private boolean reserve(String client) {
    if (open.incrementAndGet() > limits.maxConnections()) {
      open.decrementAndGet();
      totalCapReached.warn(() -> "Refused a connection on the " + limits.port() + " port from " + client + ": "
          + limits.port() + ".maxConnections (" + limits.maxConnections() + ") connections are open");
      return false;
    }
    boolean[] reserved = {false};
    openByClient.compute(client, (address, count) -> {
      int now = count == null ? 0 : count;
      reserved[0] = now < limits.maxConnectionsPerClient();
      return reserved[0] ? now + 1 : count;
    });
    if (!reserved[0]) {
      open.decrementAndGet();
      clientCapReached.warn(() -> "Refused a connection on the " + limits.port() + " port from " + client
          + ": it has " + limits.port() + ".maxConnectionsPerClient (" + limits.maxConnectionsPerClient()
          + ") open (behind a proxy or load balancer every client has the proxy's address)");
    }
    return reserved[0];
  }

  private void release(String client) {
    open.decrementAndGet();
    openByClient.computeIfPresent(client, (address, count) -> count > 1 ? count - 1 : null);
  }

  /** A request the codec could not read (too long a line or headers, garbage): 414, 431 or 400, then close. */
  private void refuseUndecodable(HttpServerRequest request, ErrorBody errorBody) {
    Throwable cause = request.decoderResult().cause();
    if (cause instanceof PrematureChannelClosureException) {
      return; // closed before its headers were complete (by the client, or by the header timeout): no one to answer
    }
    int status;
    String problem;
    if (cause instanceof TooLongHttpLineException) {
      status = 414;
      problem = "the request line is longer than " + limits.maxRequestLineBytes() + " bytes";
    } else if (cause instanceof TooLongHttpHeaderException) {
      status = 431;
      problem = "the request headers are larger than " + limits.maxHeaderBytes() + " bytes";
    } else {
      status = 400;
      problem = "the request could not be decoded: " + (cause == null ? "unknown reason" : cause.getMessage());
    }
    malformed.warn(() -> "Refused a request on the " + limits.port() + " port from " + request.remoteAddress() + " with "
        + status + ": " + problem);
    HttpConnection connection = request.connection();
    request.response()
        .setStatusCode(status)
        .putHeader("Content-Type", "application/json")
        .putHeader("Connection", "close")
        .end(errorBody.of(request, status, problem))
        .onComplete(sent -> connection.close());
  }

  /**
   * One open connection, on its event loop: the requests it has running, and since when it has been
   * waiting for the next request's headers. One timer at a time checks it.
   */
  private final class Tracked {
    private final Vertx vertx;
    private final HttpConnection connection;
    private final String client;
    private final ArrayDeque<HttpServerResponse> running = new ArrayDeque<>();
    private long timer = -1;
    /** Since when it has waited for a request's headers (nanos); -1 while requests run. */
    private long waitingSince = System.nanoTime();
    private boolean servedOne;

    Tracked(Vertx vertx, HttpConnection connection, String client) {
      this.vertx = vertx;
      this.connection = connection;
      this.client = client;
    }

    void awaitHeaders(long seconds) {
      timer = vertx.setTimer(TimeUnit.SECONDS.toMillis(seconds), fired -> check());
    }

    /**
     * A request began. Those that ended are let go here, not only when the timer looks: a kept-alive
     * connection busy for a whole idle timeout would otherwise hold every request it served meanwhile
     * (each with its body and routing state), hundreds of thousands under load.
     */
    void requested(HttpServerResponse response) {
      running.removeIf(HttpServerResponse::ended);
      running.add(response);
      waitingSince = -1;
      servedOne = true;
    }

    void closed() {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
    }

    /**
     * While requests run, looks again a header timeout later; once they have ended, allows the next
     * request the keep-alive wait; a connection over its wait is closed.
     */
    private void check() {
      timer = -1;
      running.removeIf(HttpServerResponse::ended);
      if (!running.isEmpty()) {
        awaitHeaders(limits.headerTimeoutSeconds());
        return;
      }
      if (servedOne && limits.idleTimeoutSeconds() == 0) {
        // 0 is "never": a kept-alive connection may wait for its next request as long as its client likes.
        awaitHeaders(limits.headerTimeoutSeconds());
        return;
      }
      long now = System.nanoTime();
      long allowedSeconds = servedOne
          ? Math.max(limits.idleTimeoutSeconds(), limits.headerTimeoutSeconds()) : limits.headerTimeoutSeconds();
      if (waitingSince < 0) {
        waitingSince = now;
        awaitHeaders(allowedSeconds);
        return;
      }
      long left = TimeUnit.SECONDS.toNanos(allowedSeconds) - (now - waitingSince);
      if (left > 0) {
        timer = vertx.setTimer(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)), fired -> check());
        return;
      }
      if (!servedOne) {
        // Between requests, the wait ending is the keep-alive timeout of any pooled connection: no news.
        headersTooSlow.warn(() -> "Closed a connection on the " + limits.port() + " port from " + client
            + " that sent no complete request headers within " + limits.port() + ".headerTimeoutSeconds ("
            + limits.headerTimeoutSeconds() + " s)");
      }
      connection.close();
    }
  }
}
