package ark.broker.bench;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;

import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watch streams held by a process of their own, so that reading 10,000 of them is not the broker's CPU
 * and is spread over several processes: {@code count} {@code GET /questions?watch=true} streams on
 * Vert.x's non-blocking client (a few event loops, no thread per connection). Each change's content
 * carries the {@link System#nanoTime} at which it was created ({@code fanout <n> <nanos>}), a clock every
 * process on one Linux host shares, so a delivery's latency is its arrival time minus that.
 * Prints {@code open <n> <cpu nanos>} once every stream is open, then on the line {@code collect <changes> <millis>}
 * waits until each stream has had {@code changes} changes (or the time is up), writes the latencies to
 * {@code samplesFile} and prints {@code done <deliveries> <complete streams> <fewest on one stream> <cpu nanos>}:
 * its own CPU time, so the benchmark can show the watchers are not what limits it.
 * Arguments: {@code host port count recipient samplesFile}.
 */
public final class SseWatchers {
  private static final String MARK = "\"content\":\"fanout ";
  private static final int OPENING_AT_ONCE = 200;
  private static final int OPEN_ATTEMPTS = 3;

  public static void main(String[] args) throws Exception {
    String host = args[0];
    int port = Integer.parseInt(args[1]);
    int count = Integer.parseInt(args[2]);
    String recipient = args[3];
    Path samplesFile = Path.of(args[4]);
    Vertx vertx = Vertx.vertx();
    HttpClient http = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(host).setDefaultPort(port)
        .setIdleTimeout(0), new PoolOptions().setHttp1MaxSize(count).setMaxWaitQueueSize(-1));
    Percentiles latency = new Percentiles();
    AtomicLong deliveries = new AtomicLong();
    AtomicInteger[] perStream = new AtomicInteger[count];
    Semaphore opening = new Semaphore(OPENING_AT_ONCE);
    AtomicInteger open = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    for (int w = 0; w < count; w++) {
      perStream[w] = new AtomicInteger();
      opening.acquire();
      watch(http, recipient, OPEN_ATTEMPTS, opening, open, failed, perStream[w], latency, deliveries);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (open.get() + failed.get() < count && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(10);
    }
    System.out.println("open " + open.get() + " " + cpuNanos());
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String[] collect = in.readLine().split(" ");
    int changes = Integer.parseInt(collect[1]);
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(collect[2]));
    while (deliveries.get() < (long) changes * open.get() && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(10);
    }
    int complete = 0;
    int fewest = Integer.MAX_VALUE;
    for (AtomicInteger received : perStream) {
      complete += received.get() >= changes ? 1 : 0;
      fewest = Math.min(fewest, received.get());
    }
    try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(samplesFile))) {
      latency.writeTo(out);
    }
    System.out.printf("done %d %d %d %d%n", deliveries.get(), complete, fewest, cpuNanos());
    System.out.flush();
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** Opens one watch stream; a stream the broker closed before answering (it was busy) is tried again. */
  private static void watch(HttpClient http, String recipient, int attempts, Semaphore opening, AtomicInteger open,
                            AtomicInteger failed, AtomicInteger received, Percentiles latency, AtomicLong deliveries) {
    http.request(HttpMethod.GET, "/questions?watch=true&recipient=" + recipient)
        .compose(request -> request.send())
        .onFailure(failure -> {
          if (attempts > 1) {
            watch(http, recipient, attempts - 1, opening, open, failed, received, latency, deliveries);
          } else {
            opening.release();
            failed.incrementAndGet();
            System.err.println("watch failed to open: " + failure);
          }
        })
        .onSuccess(response -> {
          opening.release();
          if (response.statusCode() != 200) {
            failed.incrementAndGet();
            System.err.println("watch answered " + response.statusCode());
            return;
          }
          open.incrementAndGet();
          StringBuilder pending = new StringBuilder();
          response.handler(chunk -> read(chunk, pending, received, latency, deliveries));
        });
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Splits the stream into frames; each change frame is one delivery, timed from the nanos in its content. */
  private static void read(Buffer chunk, StringBuilder pending, AtomicInteger received, Percentiles latency,
                           AtomicLong deliveries) {
    long now = System.nanoTime();
    pending.append(chunk.toString(StandardCharsets.UTF_8));
    int end;
    while ((end = pending.indexOf("\n\n")) >= 0) {
      int at = pending.indexOf(MARK);
      if (at >= 0 && at < end) {
        int numberStart = pending.indexOf(" ", at + MARK.length()) + 1;
        long created = Long.parseLong(pending.substring(numberStart, pending.indexOf("\"", numberStart)));
        latency.add(now - created);
        received.incrementAndGet();
        deliveries.incrementAndGet();
      }
      pending.delete(0, end + 2);
    }
  }

  private SseWatchers() {
  }
}
