package ark.broker.edge;

import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;

import java.util.concurrent.TimeUnit;

/**
 * How much one HTTP port lets its clients hold, from its config section ({@code http} or {@code mcp}).
 *
 * @param port the section's name, which log lines use to name the setting to raise
 * @param maxConnections open connections in total; a new one beyond is closed at once
 * @param maxConnectionsPerClient open connections from one client address; behind a load balancer or
 *     proxy every client has the proxy's address, so this caps the proxy as a whole
 * @param idleTimeoutSeconds a connection that neither sends nor receives anything this long is closed
 *     (heartbeats keep streams alive); 0: never
 * @param headerTimeoutSeconds a new connection must have sent its first request line and headers within
 *     this time, else it is closed (slowloris)
 * @param maxHeaderBytes larger request headers get 431
 * @param maxRequestLineBytes a longer request line gets 414
 */
public record ServerLimits(String port, int maxConnections, int maxConnectionsPerClient, int idleTimeoutSeconds,
                           int headerTimeoutSeconds, int maxHeaderBytes, int maxRequestLineBytes) {

  public ServerLimits {
    atLeast(port + ".maxConnections", maxConnections, 1);
    atLeast(port + ".maxConnectionsPerClient", maxConnectionsPerClient, 1);
    atLeast(port + ".idleTimeoutSeconds", idleTimeoutSeconds, 0);
    atLeast(port + ".headerTimeoutSeconds", headerTimeoutSeconds, 1);
    atLeast(port + ".maxHeaderBytes", maxHeaderBytes, 256);
    atLeast(port + ".maxRequestLineBytes", maxRequestLineBytes, 64);
  }

  /**
   * The limits in {@code section} (named {@code port}), whose streams send a heartbeat every
   * {@code heartbeatSeconds}: the idle timeout must be longer, or idle streams would be cut.
   */
  public static ServerLimits from(String port, JsonObject section, long heartbeatSeconds) {
    ServerLimits limits = new ServerLimits(port,
        section.getInteger("maxConnections"),
        section.getInteger("maxConnectionsPerClient"),
        section.getInteger("idleTimeoutSeconds"),
        section.getInteger("headerTimeoutSeconds"),
        section.getInteger("maxHeaderBytes"),
        section.getInteger("maxRequestLineBytes"));
    if (limits.idleTimeoutSeconds > 0 && limits.idleTimeoutSeconds <= heartbeatSeconds) {
      throw new IllegalArgumentException(port + ".idleTimeoutSeconds (" + limits.idleTimeoutSeconds
          + ") must be longer than " + port + ".heartbeatSeconds (" + heartbeatSeconds
          + "), or idle streams would be cut between heartbeats; twice as long or more is safe");
    }
    return limits;
  }

  /**
   * The server options these limits set. HTTP/2 over cleartext (h2c) is off: with it, Vert.x hands a
   * connection over only once it has read enough to choose the protocol, so connections that send
   * nothing or too little would escape the caps and the header timeout. Clients speak HTTP/1.1 to the
   * broker (SSE and MCP's Streamable HTTP need nothing more); an h2c upgrade request is answered in HTTP/1.1.
   * WebSocket compression is off because the broker serves no WebSockets: with it on, Vert.x puts a WebSocket
   * extension handler into every connection's pipeline, which every response and every SSE chunk passes through.
   * Strict thread mode: the broker writes every response on its connection's own event loop (replies and stream
   * events reach the HTTP verticles over the event bus, on their context), so Vert.x writes straight to the channel
   * instead of giving each connection a queue for writes from other threads (a 4 KiB array and its 0.6 KB holder per
   * connection, 4.7 MB for 1,000 idle watch streams); a write from another thread would fail loudly.
   */
  public HttpServerOptions options() {
    return new HttpServerOptions()
        .setHttp2ClearTextEnabled(false)
        .setPerMessageWebSocketCompressionSupported(false)
        .setPerFrameWebSocketCompressionSupported(false)
        .setStrictThreadMode(true)
        .setIdleTimeout(idleTimeoutSeconds)
        .setIdleTimeoutUnit(TimeUnit.SECONDS)
        .setMaxHeaderSize(maxHeaderBytes)
        .setMaxInitialLineLength(maxRequestLineBytes);
  }

  private static void atLeast(String key, int value, int least) {
    if (value < least) {
      throw new IllegalArgumentException(key + " must be at least " + least + ", not " + value);
    }
  }
}
