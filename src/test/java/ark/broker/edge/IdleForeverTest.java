package ark.broker.edge;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.RawHttp;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.Socket;
import java.net.SocketTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code idleTimeoutSeconds: 0} means never: a kept-alive connection outlives the header timeout between requests. */
class IdleForeverTest {
  private static final int HEADER_SECONDS = 1;
  private static final String HEALTH = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n";
  static TestBroker broker;
  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject()
      .put("http", new JsonObject().put("idleTimeoutSeconds", 0).put("headerTimeoutSeconds", HEADER_SECONDS)),
      started -> broker = started);

  @Test
  void aKeptAliveConnectionWaitsForItsNextRequestAsLongAsItLikes() throws Exception {
    try (Socket socket = new Socket(broker.base.getHost(), broker.base.getPort())) {
      assertThat(RawHttp.exchange(socket, HEALTH)).startsWith("HTTP/1.1 200");

      socket.setSoTimeout((HEADER_SECONDS * 2 + 1) * 1000);
      assertThatThrownBy(() -> socket.getInputStream().read()).as("still open, nothing sent, well past the header timeout")
          .isInstanceOf(SocketTimeoutException.class);

      assertThat(RawHttp.exchange(socket, HEALTH)).startsWith("HTTP/1.1 200");
    }
  }
}
