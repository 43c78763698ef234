package ark.broker.edge;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connection floods, slow and idle clients on both ports, over raw sockets: connections over a cap are
 * closed at once while other clients are served, a client that sends its headers too slowly or goes
 * quiet mid-request is cut off, streams kept alive by heartbeats stay open, and oversized request lines
 * and headers get 414 and 431. Clients at 127.0.0.2 and up are other addresses on the loopback.
 */
class ConnectionLimitsTest {
  private static final int PER_CLIENT = 3;
  private static final int TOTAL = 6;
  private static final int IDLE_SECONDS = 2;
  private static final String WATCH = "GET /questions?watch=true HTTP/1.1\r\nHost: localhost\r\n\r\n";
  private static final String HEALTH = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  static TestBroker broker;
  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject()
      // Two event loops on the REST port: the caps count the port, not one loop.
      .put("http", limits().put("instances", 2))
      .put("mcp", limits()), started -> broker = started);

  private static JsonObject limits() {
    return new JsonObject()
        .put("maxConnections", TOTAL)
        .put("maxConnectionsPerClient", PER_CLIENT)
        .put("idleTimeoutSeconds", IDLE_SECONDS)
        .put("heartbeatSeconds", 1)
        .put("headerTimeoutSeconds", 1)
        .put("maxHeaderBytes", 1024)
        .put("maxRequestLineBytes", 512);
  }

  @Test
  void aFloodFromOneAddressIsCutAtItsCapWhileOtherAddressesAreServed() throws Exception {
    List<Socket> flood = new ArrayList<>();
    int answered = 0;
    try {
      for (int i = 0; i < PER_CLIENT + 3; i++) {
        Socket socket = connect(broker.base, "127.0.0.1");
        flood.add(socket);
        if (statusOf(socket, WATCH) == 200) {
          answered++;
        }
      }
      assertThat(answered).as("watches answered on connections from one address").isBetween(1, PER_CLIENT);
      assertThat(served(broker.base, "127.0.0.2", HEALTH)).as("another address, during the flood").isEqualTo(200);
    } finally {
      closeAll(flood);
    }
    Eventually.until("the flooding address is served again once its connections closed",
        () -> served(broker.base, "127.0.0.1", HEALTH), status -> status == 200);
  }

  @Test
  void connectionsBeyondThePortsTotalAreCut() throws Exception {
    List<Socket> flood = new ArrayList<>();
    int answered = 0;
    try {
      for (String client : List.of("127.0.0.2", "127.0.0.3", "127.0.0.4")) {
        for (int i = 0; i < PER_CLIENT; i++) {
          Socket socket = connect(broker.base, client);
          flood.add(socket);
          if (statusOf(socket, WATCH) == 200) {
            answered++;
          }
        }
      }
      assertThat(answered).as("watches answered from three addresses").isBetween(1, TOTAL);
    } finally {
      closeAll(flood);
    }
    Eventually.until("served again once the connections closed",
        () -> served(broker.base, "127.0.0.5", HEALTH), status -> status == 200);
  }

  @Test
  void theMcpPortCapsConnectionsPerAddressToo() throws Exception {
    List<Socket> flood = new ArrayList<>();
    int open = 0;
    try {
      for (int i = 0; i < PER_CLIENT + 3; i++) {
        Socket socket = connect(broker.mcp, "127.0.0.6");
        flood.add(socket);
        // GET without a session is refused with a 4xx on a connection that stays open (keep-alive).
        if (statusOf(socket, "GET /mcp HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n") > 0) {
          open++;
        }
      }
      assertThat(open).as("connections from one address that got an answer").isEqualTo(PER_CLIENT);
    } finally {
      closeAll(flood);
    }
  }

  @Test
  void aClientThatNeverFinishesItsHeadersIsCutWhileOthersAreServed() throws Exception {
    for (URI port : List.of(broker.base, broker.mcp)) {
      try (Socket slow = connect(port, "127.0.0.7")) {
        slow.getOutputStream().write(bytes("GET /questions HTTP/1.1\r\nHost: x\r\n"));

        assertThat(served(port, "127.0.0.8", HEALTH)).as("another client of %s, meanwhile", port).isBetween(200, 499);
        // A header line every half second: the idle timeout never fires, only the header timeout can cut it.
        String received = readUntilClosed(slow, () -> slow.getOutputStream().write(bytes("X-Slow: a\r\n")));
        assertThat(received).as("what the slow client received from %s", port).doesNotContain("HTTP/1.1 5");
      }
    }
  }

  @Test
  void aConnectionQuietMidRequestIsClosedAfterTheIdleTimeout() throws Exception {
    for (URI port : List.of(broker.base, broker.mcp)) {
      try (Socket quiet = connect(port, "127.0.0.9")) {
        // Headers complete, the body promised but never sent: only the idle timeout can end this.
        quiet.getOutputStream().write(bytes("POST " + port.getPath().replaceFirst("^$", "/questions") + " HTTP/1.1\r\n"
            + "Host: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            + "Content-Length: 100\r\n\r\n{"));

        String received = readUntilClosed(quiet, () -> { });
        assertThat(received).as("what the quiet client received from %s", port).doesNotContain("HTTP/1.1 5");
      }
    }
  }

  @Test
  void aWatchKeptAliveByHeartbeatsOutlivesTheIdleTimeout() throws Exception {
    try (SseStream watch = SseStream.open(broker.http, HttpRequest.newBuilder(broker.base.resolve("/questions?watch=true"))
        .timeout(java.time.Duration.ofSeconds(30)).GET().build())) {
      assertThat(watch.status).isEqualTo(200);
      outlivesTheIdleTimeout(watch);
    }
  }

  @Test
  void anMcpStreamKeptAliveByHeartbeatsOutlivesTheIdleTimeout() throws Exception {
    McpTestClient client = new McpTestClient(broker.mcp).initialize();
    try (SseStream stream = client.get(null)) {
      assertThat(stream.status).isEqualTo(200);
      outlivesTheIdleTimeout(stream);
    }
  }

  @Test
  void anOversizedHeaderIs431AndAnOverlongRequestLineIs414() throws Exception {
    String bigHeader = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "a".repeat(2000) + "\r\nConnection: close\r\n\r\n";
    String longLine = "GET /questions?filler=" + "a".repeat(1000) + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";

    assertRefused(broker.base, bigHeader, 431);
    assertRefused(broker.base, longLine, 414);
    assertRefused(broker.mcp, bigHeader.replace("/healthz", "/mcp"), 431);
    assertRefused(broker.mcp, longLine.replace("/questions", "/mcp"), 414);
    assertThat(served(broker.base, "127.0.0.1", HEALTH)).isEqualTo(200);
  }

  private static void assertRefused(URI port, String request, int status) throws Exception {
    try (Socket socket = connect(port, "127.0.0.10")) {
      socket.getOutputStream().write(bytes(request));
      String answer = readUntilClosed(socket, () -> { });
      // An unreadable request line leaves the version unknown: the answer is then HTTP/1.0.
      assertThat(answer).as("the answer from %s", port).matches("(?s)HTTP/1\\.[01] " + status + " .*");
      assertThat(new JsonObject(answer.substring(answer.indexOf("\r\n\r\n") + 4)).getJsonObject("error"))
          .as("its JSON error").isNotNull();
    }
  }

  /** Reads heartbeats until well past the idle timeout; the stream must not end meanwhile. */
  private static void outlivesTheIdleTimeout(SseStream stream) throws Exception {
    long started = System.nanoTime();
    int heartbeats = 0;
    while (System.nanoTime() - started < TimeUnit.SECONDS.toNanos(2L * IDLE_SECONDS)) {
      assertThat(stream.nextComment(5, TimeUnit.SECONDS)).as("heartbeat %d", heartbeats + 1).isNotNull();
      heartbeats++;
    }
    for (SseStream.SseEvent event = stream.next(0, TimeUnit.SECONDS); event != null; event = stream.next(0, TimeUnit.SECONDS)) {
      assertThat(event.event()).as("an event on the stream").isNotEqualTo("end-of-stream");
    }
  }

  private static Socket connect(URI server, String from) throws IOException {
    Socket socket = new Socket();
    socket.bind(new InetSocketAddress(from, 0));
    socket.connect(new InetSocketAddress(server.getHost(), server.getPort()), 5000);
    socket.setSoTimeout(10_000);
    return socket;
  }

  /** Sends {@code request} on a new connection from {@code from} and returns the status of its answer (0: none). */
  private static int served(URI server, String from, String request) throws IOException {
    try (Socket socket = connect(server, from)) {
      return statusOf(socket, request);
    }
  }

  /** Sends {@code request} and reads the status line of the answer: 0 if the connection closed without one. */
  private static int statusOf(Socket socket, String request) throws IOException {
    try {
      socket.getOutputStream().write(bytes(request));
      InputStream in = socket.getInputStream();
      StringBuilder line = new StringBuilder();
      for (int read = in.read(); read >= 0 && read != '\n'; read = in.read()) {
        line.append((char) read);
      }
      return line.toString().startsWith("HTTP/1.1 ") && line.length() >= 12 ? Integer.parseInt(line.substring(9, 12)) : 0;
    } catch (SocketException closed) {
      return 0;
    }
  }

  private interface Step {
    void run() throws IOException;
  }

  /**
   * Reads until the server closes the connection, taking {@code meanwhile} every half second; fails if
   * it has not closed it within 20 s.
   */
  private static String readUntilClosed(Socket socket, Step meanwhile) throws IOException {
    socket.setSoTimeout(500);
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    byte[] buffer = new byte[8192];
    while (System.nanoTime() < deadline) {
      try {
        int read = socket.getInputStream().read(buffer);
        if (read < 0) {
          return received.toString(StandardCharsets.ISO_8859_1);
        }
        received.write(buffer, 0, read);
      } catch (SocketTimeoutException open) {
        try {
          meanwhile.run();
        } catch (SocketException closed) {
          return received.toString(StandardCharsets.ISO_8859_1);
        }
      } catch (SocketException reset) {
        return received.toString(StandardCharsets.ISO_8859_1);
      }
    }
    throw new AssertionError("the server kept the connection open for 20 s; received: " + received);
  }

  private static void closeAll(List<Socket> sockets) throws IOException {
    for (Socket socket : sockets) {
      socket.close();
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }
}
