package ark.broker.http;

import ark.broker.contract.Checks;
import ark.broker.contract.RawExchange;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.CapturedLog;
import ark.broker.testing.Eventually;
import ark.broker.testing.TestBroker;
import ch.qos.logback.classic.Level;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One budget for what the clients of Ark's routes make the broker hold, across every connection: watches that never
 * read are cut off, the reader holding the most first, while a post feeds them; bodies beyond it are refused before
 * they are read; and the broker answers its liveness probe at once throughout.
 */
class HeldBytesTest {
  private static final long MAX_HELD = 2L << 20;
  private static final long MAX_UNREAD = 512L << 10;
  private static final Pattern HELD = Pattern.compile("(?m)^ark_broker_ark_api_held_bytes(?:\\{[^}]*})? (\\S+)$");
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject()
      .put("http", new JsonObject().put("instances", 2))
      .put("arkApi", new JsonObject().put("maxHeldBytes", MAX_HELD).put("maxUnreadBytes", MAX_UNREAD)
          .put("bodyLimitBytes", MAX_UNREAD).put("maxStreamLineBytes", 64 << 10)),
      started -> broker = started);

  @Test
  void watchesThatNeverReadAreCutOffWithinTheBudgetAndTheBrokerStaysLive() throws Exception {
    List<Socket> idle = new ArrayList<>();
    try (CapturedLog log = CapturedLog.all()) {
      for (int i = 0; i < 100; i++) {
        idle.add(neverReading("/stream?watch=true"));
      }
      Probes probes = new Probes();
      RawExchange.Answer posted;
      try (RawExchange post = RawExchange.chunkedPost(broker.base, "/stream/q-flood", "application/x-ndjson")) {
        String line = Checks.chunk("q-flood", "x".repeat(60_000)).encode();
        for (int i = 0; i < 64; i++) {
          post.line(line);
        }
        posted = post.finish(Duration.ofSeconds(30));
      } finally {
        probes.stop();
      }

      assertThat(posted.status()).as("about 4 MB for each of 100 watches that never read").isEqualTo(200);
      // Readers cut off hold what they held until their connections close; without the budget each of them would hold
      // up to maxUnreadBytes (50 MiB here).
      assertThat(probes.peakHeld.get()).as("held at most, sampled while the post ran").isLessThanOrEqualTo(8 * MAX_HELD);
      assertThat(probes.slowest.get()).as("the slowest liveness probe, in ns").isLessThan(TimeUnit.SECONDS.toNanos(1));
      for (Socket socket : idle) {
        assertThat(endsWithin(socket, Duration.ofSeconds(20))).as("a watch that never read was cut off").isTrue();
      }
      Eventually.until("what they held released", HeldBytesTest::held, held -> held == 0);
      assertThat(log.events()).noneMatch(event -> event.getLevel() == Level.ERROR);
    } finally {
      for (Socket socket : idle) {
        socket.close();
      }
    }
  }

  /** The liveness probe asked, and what is held sampled, over and over while a test runs. */
  private static final class Probes {
    final AtomicLong peakHeld = new AtomicLong();
    final AtomicLong slowest = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final CompletableFuture<Void> probing = CompletableFuture.runAsync(() -> {
      try {
        while (running.get()) {
          long started = System.nanoTime();
          assertThat(broker.get("/livez").status()).isEqualTo(200);
          slowest.accumulateAndGet(System.nanoTime() - started, Math::max);
          peakHeld.accumulateAndGet(held(), Math::max);
        }
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });

    void stop() throws Exception {
      running.set(false);
      probing.get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBodyBeyondTheBudgetIsRefusedBeforeItIsRead() throws Exception {
    List<RawExchange> reading = new ArrayList<>();
    try {
      for (int i = 0; i < MAX_HELD / MAX_UNREAD; i++) {
        RawExchange post = RawExchange.sizedPost(broker.base, "/messages", "application/json", MAX_UNREAD);
        post.piece("{");
        reading.add(post);
      }
      Eventually.until("the bodies being read held", HeldBytesTest::held, held -> held == MAX_HELD);
      try (RawExchange refused = RawExchange.sizedPost(broker.base, "/messages", "application/json", 100)) {
        RawExchange.Answer answer = refused.answer(Duration.ofSeconds(10));

        assertThat(answer.status()).isEqualTo(503);
        assertThat(answer.json().getJsonObject("error").getString("code")).isEqualTo("SERVICE_UNAVAILABLE");
      }
    } finally {
      for (RawExchange post : reading) {
        post.close();
      }
    }
    Eventually.until("what they held released", HeldBytesTest::held, held -> held == 0);
    assertThat(broker.post("/messages", new JsonObject().put("conversation_id", "c-held").put("query_id", "q-held")
        .put("messages", new io.vertx.core.json.JsonArray().add(new JsonObject().put("role", "user")
            .put("content", "fits again"))).encode()).status()).isEqualTo(200);
  }

  private static long held() throws Exception {
    Matcher gauge = HELD.matcher(broker.get("/metrics").body());
    return gauge.find() ? (long) Double.parseDouble(gauge.group(1)) : -1;
  }

  /** A watch whose client takes nothing after the request: only the kernel's small buffers hold what is sent. */
  private static Socket neverReading(String path) throws Exception {
    Socket socket = new Socket();
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress(broker.base.getHost(), broker.base.getPort()), 5000);
    OutputStream out = socket.getOutputStream();
    out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return socket;
  }

  /** Whether the server closes the connection within the time, reading what it sent until then. */
  private static boolean endsWithin(Socket socket, Duration within) throws Exception {
    try (socket) {
      long deadline = System.nanoTime() + within.toNanos();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[65536];
      while (System.nanoTime() < deadline) {
        socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        try {
          if (in.read(buffer) < 0) {
            return true;
          }
        } catch (java.net.SocketException reset) {
          return true;
        } catch (java.net.SocketTimeoutException late) {
          return false;
        }
      }
      return false;
    }
  }
}
