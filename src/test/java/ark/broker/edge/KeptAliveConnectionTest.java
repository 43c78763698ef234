package ark.broker.edge;

import ark.broker.testing.RawHttp;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A kept-alive connection that serves request after request holds on to none of those it finished: under load one
 * connection serves thousands a second, and each request held until the connection next went idle kept its body
 * and state alive with it (the broker's heap filled within a minute of steady load).
 */
class KeptAliveConnectionTest {
  private static final int REQUESTS = 300;
  private static final String REQUEST = "GET /anything HTTP/1.1\r\nHost: localhost\r\n\r\n";

  private Vertx vertx;
  private HttpServer server;
  private final List<WeakReference<HttpServerResponse>> served = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    // Timeouts far beyond the test: only serving the next request may let the finished ones go.
    ServerLimits limits = new ServerLimits("http", 10, 10, 600, 600, 16384, 8192);
    server = ConnectionLimits.shared(vertx, limits)
        .createServer(vertx, request -> {
          served.add(new WeakReference<>(request.response()));
          request.response().end("ok");
        }, (request, status, message) -> "{}")
        .listen(0, "127.0.0.1")
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void holdsNoneOfTheRequestsItFinished() throws Exception {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.actualPort())) {
      for (int i = 0; i < REQUESTS; i++) {
        assertThat(RawHttp.exchange(socket, REQUEST)).as("answer %d on the same connection", i + 1).startsWith("HTTP/1.1 200");
      }

      assertThat(stillHeldAfterCollecting()).as("finished requests still reachable, of %d served", REQUESTS)
          .isLessThanOrEqualTo(1);
    }
  }

  /** Collects garbage until the count of responses still reachable stops falling. */
  private int stillHeldAfterCollecting() throws InterruptedException {
    int held = Integer.MAX_VALUE;
    for (int round = 0; round < 20; round++) {
      System.gc();
      int now = (int) served.stream().filter(reference -> reference.get() != null).count();
      if (now <= 1 || (now == held && round >= 5)) {
        return now;
      }
      held = now;
      Thread.sleep(50);
    }
    return held;
  }
}
