package ark.broker;

import ark.broker.contract.Checks;
import ark.broker.contract.OtlpRequests;
import ark.broker.contract.RawExchange;
import ark.broker.testing.BrokerProcess;
import ark.broker.testing.RawHttp;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What clients can make a broker hold, at the manifests' heap (768 MiB) with the shipped JVM options and defaults:
 * 400 watches that never read and one 4 MB stream post leave the process's resident memory in bounds and its
 * liveness probe answered at once throughout (before the budget for unread bytes, they took it from 122 MB to
 * 1.4 GB, every event loop waiting for direct memory); then a 5 KB gzip OTLP body of 2.5 million spans is 413 and
 * the broker lives on.
 */
class HeldByClientsIT {
  private static final int WATCHES = 400;

  @TempDir
  Path dataDir;

  @Test
  void unreadWatchesAndABombLeaveTheBrokerLiveAndInBounds() throws Exception {
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, port, Map.of(), "768m")) {
      broker.awaitReady(Duration.ofSeconds(90));
      List<Socket> idle = new ArrayList<>();
      try {
        for (int i = 0; i < WATCHES; i++) {
          idle.add(neverReading(port));
        }
        long before = residentMiB(broker);
        // The probe's own first call loads its classes here: what is measured below is the broker's answering.
        assertThat(live(broker)).isTrue();
        AtomicLong slowest = new AtomicLong();
        AtomicBoolean posting = new AtomicBoolean(true);
        CompletableFuture<Void> probing = CompletableFuture.runAsync(() -> {
          while (posting.get()) {
            long started = System.nanoTime();
            assertThat(live(broker)).isTrue();
            slowest.accumulateAndGet(System.nanoTime() - started, Math::max);
          }
        });
        RawExchange.Answer posted;
        try (RawExchange post = RawExchange.chunkedPost(broker.base, "/stream/q-flood", "application/x-ndjson")) {
          String line = Checks.chunk("q-flood", "x".repeat(60_000)).encode();
          for (int i = 0; i < 70; i++) {
            post.line(line);
          }
          posted = post.finish(Duration.ofSeconds(60));
        } finally {
          posting.set(false);
        }
        probing.get(60, TimeUnit.SECONDS);
        long after = residentMiB(broker);

        assertThat(posted.status()).as("a 4 MB post to %d watches that never read", WATCHES).isEqualTo(200);
        System.out.printf("%d watches that never read, a 4 MB post: resident %d -> %d MiB, slowest /livez %d ms%n",
            WATCHES, before, after, TimeUnit.NANOSECONDS.toMillis(slowest.get()));
        // An event loop stuck waiting for memory never answers; one handing a 60 KB item to every watch in one go
        // answered after 1-2 s.
        assertThat(slowest.get()).as("the slowest /livez while it ran, ns").isLessThan(TimeUnit.SECONDS.toNanos(1));
        assertThat(after - before).as("resident memory grown, MiB (%d before)", before).isLessThan(300);
      } finally {
        for (Socket socket : idle) {
          socket.close();
        }
      }

      byte[] bomb = OtlpRequests.gzip(ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
          .addScopeSpans(ScopeSpans.newBuilder().addAllSpans(Collections.nCopies(2_500_000, Span.getDefaultInstance()))))
          .build().toByteArray());
      HttpURLConnection export = (HttpURLConnection) broker.base.resolve("/v1/traces").toURL().openConnection();
      export.setDoOutput(true);
      export.setRequestMethod("POST");
      export.setRequestProperty("Content-Type", "application/x-protobuf");
      export.setRequestProperty("Content-Encoding", "gzip");
      try (OutputStream out = export.getOutputStream()) {
        out.write(bomb);
      }
      assertThat(export.getResponseCode()).as("%d bytes of gzip holding 2.5 million spans", bomb.length).isEqualTo(413);
      assertThat(live(broker)).isTrue();
      assertThat(broker.isAlive()).isTrue();
      assertThat(broker.output()).doesNotContain(" ERROR ");
    }
  }

  private static boolean live(BrokerProcess broker) {
    try {
      return RawHttp.send(broker.base, "GET /livez HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
          Duration.ofSeconds(10)).status() == 200;
    } catch (java.io.IOException e) {
      return false;
    }
  }

  private static long residentMiB(BrokerProcess broker) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + broker.pid() + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    throw new IllegalStateException("no VmRSS for " + broker.pid());
  }

  private static Socket neverReading(int port) throws Exception {
    Socket socket = new Socket();
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 5000);
    socket.getOutputStream().write(("GET /stream?watch=true HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    return socket;
  }
}
