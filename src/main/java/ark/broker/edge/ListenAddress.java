package ark.broker.edge;

import io.vertx.core.Future;
import io.vertx.core.http.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Locale;

/**
 * Why a port cannot listen, in the words of its settings: {@code http.port} in use by another process, or
 * {@code http.host} not an address of this machine, so an operator knows what to change. {@link #requireFree}
 * asks before anything slow starts; {@link #explained} says the same should the real listen fail anyway.
 */
public final class ListenAddress {
  private ListenAddress() {
  }

  /**
   * Fails now if {@code host}:{@code port} cannot be listened on; the port is free again when this returns. Port 0
   * (any free port) always can.
   *
   * @param surface the section of the settings ({@code http}, {@code mcp})
   */
  public static void requireFree(String surface, String host, int port) {
    if (port == 0) {
      return;
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw refusal(surface, host, port, e);
    }
  }

  /** {@code listening}, its failure explained as {@link #requireFree} explains it. */
  public static Future<HttpServer> explained(Future<HttpServer> listening, String surface, String host, int port) {
    return listening.recover(failure -> Future.failedFuture(refusal(surface, host, port, failure)));
  }

  private static IllegalStateException refusal(String surface, String host, int port, Throwable failure) {
    String portSetting = surface + ".port (" + surface.toUpperCase(Locale.ROOT) + "_PORT)";
    String hostSetting = surface + ".host (" + surface.toUpperCase(Locale.ROOT) + "_HOST)";
    String reason = String.valueOf(failure.getMessage());
    String what;
    if (reason.contains("Address already in use")) {
      what = "port " + port + " is in use by another process; stop it, or set " + portSetting + " to a free port";
    } else if (reason.contains("Cannot assign requested address") || reason.contains("Unresolved address")) {
      what = "'" + host + "' is not an address of this machine; set " + hostSetting
          + " to one of its addresses (0.0.0.0 for all of them)";
    } else if (reason.contains("Permission denied")) {
      what = "port " + port + " needs privileges this process does not have (ports below 1024 do); set " + portSetting
          + " to a port from 1024 up";
    } else {
      what = reason + "; check " + hostSetting + " and " + portSetting;
    }
    return new IllegalStateException("cannot listen on " + host + ":" + port + " for " + surface + ": " + what, failure);
  }
}
