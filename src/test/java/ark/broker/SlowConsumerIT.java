package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.QuestionLogFile;
import ark.broker.testing.RawHttp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hundreds of watchers that ask for a long history and never read it, against a broker whose heap is
 * capped at 256 MiB: the history goes out only as fast as each of them reads, so the broker neither runs
 * out of memory nor stops serving everyone else; the watchers that fall behind are cut off.
 */
class SlowConsumerIT {
  private static final int QUESTIONS = 40_000;
  /** About 28 MB of history per watcher from the start: 300 of them held in memory would need 8 GB. */
  private static final int CONTENT_CHARS = 600;
  private static final int WATCHERS = 300;
  private static final String QUESTION = "{\"recipient\":\"ark://users/mary\",\"content\":\"New?\"}";

  @TempDir
  Path dataDir;

  @Test
  void watchersThatDoNotReadNeitherExhaustTheHeapNorStallOthers() throws Exception {
    QuestionLogFile.writeCreations(dataDir, QUESTIONS, CONTENT_CHARS);
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, port, BrokerProcess.storesBoundedTo(8 << 20), "256m")) {
      broker.awaitReady(Duration.ofSeconds(90));
      List<Socket> stalled = new ArrayList<>();
      try {
        for (int i = 0; i < WATCHERS; i++) {
          stalled.add(watchWithoutReading(port));
        }

        // Everyone else is still served, and the changes they make reach the watch streams.
        for (int i = 0; i < 100; i++) {
          RawHttp.Answer created = RawHttp.send(broker.base, "POST /questions HTTP/1.1\r\nHost: localhost\r\n"
              + "Content-Type: application/json\r\nContent-Length: " + QUESTION.length() + "\r\nConnection: close\r\n\r\n"
              + QUESTION);
          assertThat(created.status()).as("create %d while %d watchers stall", i, WATCHERS).isEqualTo(201);
        }
        RawHttp.Answer list = RawHttp.send(broker.base, "GET /questions?limit=5 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
        assertThat(list.status()).isEqualTo(200);
        assertThat(broker.isAlive()).as("the broker did not exit for lack of memory").isTrue();
      } finally {
        for (Socket socket : stalled) {
          socket.close();
        }
      }
      assertThat(RawHttp.send(broker.base, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").status())
          .isEqualTo(200);
      assertThat(broker.output()).doesNotContain("OutOfMemoryError").contains("read too slowly");
    }
  }

  private static Socket watchWithoutReading(int port) throws Exception {
    Socket socket = new Socket();
    // A small window, so the kernel holds little of what the broker writes and the broker must wait.
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
    socket.getOutputStream().write(("GET /questions?watch=true&resourceVersion=0 HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .getBytes(StandardCharsets.ISO_8859_1));
    return socket;
  }
}
