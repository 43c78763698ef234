package ark.broker;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;

/**
 * The broker's Vert.x, on Netty's native epoll transport where it loads (Linux on x86-64 and ARM64 with glibc, as the
 * image and Kubernetes run it) and on Java's NIO elsewhere. Native epoll writes from buffers' addresses, without NIO's
 * selector keys, locks and per-write garbage, so a burst of connections (a dashboard fleet's watch streams) grows the
 * heap less: 20 MiB less resident with 1,000 streams, REST no worse (docs/benchmarks.md). The JVM option
 * {@code -Dio.netty.transport.noNative=true} (Netty's own) turns it off.
 */
final class NativeTransport {
  private NativeTransport() {
  }

  static Vertx vertx() {
    return Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
  }

  /** Which transport {@code vertx} runs on, and why not the native one, for the start-up line. */
  static String describe(Vertx vertx) {
    if (vertx.isNativeTransportEnabled()) {
      return "native epoll";
    }
    Throwable cause = vertx.unavailableNativeTransportCause();
    return "Java NIO" + (cause == null ? "" : " (native epoll unavailable: " + cause.getMessage() + ")");
  }
}
