package ark.broker.bench;

import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Watch streams held by a process of their own, so that reading 10,000 of them is not the broker's CPU and is
 * spread over several processes: {@code count} {@code GET /questions?watch=true} streams on one thread with a
 * {@link Selector}, each stream's bytes scanned as they arrive for a change's content and nothing else decoded
 * (an HTTP client and a JSON parser per delivery cost the watchers five times the broker's CPU). Each change's
 * content is {@code fanout <round> <n> <nanos>}: {@link System#nanoTime} when it was created, a clock every process
 * on one Linux host shares, so a delivery's latency is its arrival time minus that.
 * Prints {@code open <n> <cpu nanos>} once every stream is open; then for each line {@code collect <round> <changes>
 * <millis>} waits until each stream has had {@code changes} changes of that round (or the time is up), writes that
 * round's latencies to {@code samplesFile-<round>} and prints {@code done <deliveries> <complete streams> <fewest on
 * one stream> <cpu nanos>}: its own CPU time, so the benchmark can show the watchers are not what limits it.
 * Arguments: {@code host port count recipient samplesFile}.
 */
public final class SseWatchers {
  static final int ROUNDS = 8;
  private static final byte[] MARK = "\"content\":\"fanout ".getBytes(StandardCharsets.US_ASCII);
  private static final int OPENING_AT_ONCE = 200;

  private final List<Stream> streams = new ArrayList<>();
  private final Percentiles[] latency = new Percentiles[ROUNDS];
  private final long[] deliveries = new long[ROUNDS];
  private final Selector selector;
  private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(256 * 1024);
  private volatile int open;
  private volatile int failed;

  private SseWatchers() throws IOException {
    selector = Selector.open();
    for (int round = 0; round < ROUNDS; round++) {
      latency[round] = new Percentiles();
    }
  }

  public static void main(String[] args) throws Exception {
    InetSocketAddress broker = new InetSocketAddress(args[0], Integer.parseInt(args[1]));
    int count = Integer.parseInt(args[2]);
    byte[] request = ("GET /questions?watch=true&recipient=" + args[3] + " HTTP/1.1\r\nHost: " + args[0] + ":" + args[1]
        + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    String samplesFile = args[4];
    SseWatchers watchers = new SseWatchers();
    Thread reader = new Thread(() -> watchers.run(broker, count, request), "sse-watchers");
    reader.setDaemon(true);
    reader.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (watchers.open + watchers.failed < count && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(10);
    }
    System.out.println("open " + watchers.open + " " + cpuNanos());
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] collect = line.split(" ");
      watchers.collect(Integer.parseInt(collect[1]), Integer.parseInt(collect[2]), Long.parseLong(collect[3]),
          Path.of(samplesFile + "-" + collect[1]));
    }
  }

  private void collect(int round, int changes, long millis, Path samples) throws Exception {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (delivered(round) < (long) changes * open && System.nanoTime() < until) {
      TimeUnit.MILLISECONDS.sleep(10);
    }
    int complete = 0;
    int fewest = Integer.MAX_VALUE;
    synchronized (this) {
      for (Stream stream : streams) {
        complete += stream.received[round] >= changes ? 1 : 0;
        fewest = Math.min(fewest, stream.received[round]);
      }
    }
    try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(samples))) {
      latency[round].writeTo(out);
    }
    System.out.printf("done %d %d %d %d%n", delivered(round), complete, fewest, cpuNanos());
    System.out.flush();
  }

  private synchronized long delivered(int round) {
    return deliveries[round];
  }

  /** The selector loop: opens the streams a few hundred at a time, then reads them all. */
  private void run(InetSocketAddress broker, int count, byte[] request) {
    try {
      int started = 0;
      while (true) {
        while (started < count && started - open - failed < OPENING_AT_ONCE) {
          SocketChannel channel = SocketChannel.open();
          channel.configureBlocking(false);
          channel.connect(broker);
          channel.register(selector, SelectionKey.OP_CONNECT, new Stream(ByteBuffer.wrap(request)));
          started++;
        }
        selector.select(100);
        for (SelectionKey key : selector.selectedKeys()) {
          handle(key);
        }
        selector.selectedKeys().clear();
      }
    } catch (IOException e) {
      System.err.println("watchers stopped: " + e);
    }
  }

  private void handle(SelectionKey key) {
    Stream stream = (Stream) key.attachment();
    SocketChannel channel = (SocketChannel) key.channel();
    try {
      if (key.isConnectable() && channel.finishConnect()) {
        key.interestOps(SelectionKey.OP_WRITE);
      }
      if (key.isValid() && key.isWritable()) {
        channel.write(stream.request);
        if (!stream.request.hasRemaining()) {
          key.interestOps(SelectionKey.OP_READ);
        }
      }
      if (key.isValid() && key.isReadable()) {
        readBuffer.clear();
        int read = channel.read(readBuffer);
        if (read < 0) {
          throw new IOException("the broker closed a watch stream");
        }
        readBuffer.flip();
        scan(stream, System.nanoTime());
      }
    } catch (IOException e) {
      key.cancel();
      synchronized (this) {
        failed++;
      }
      System.err.println("watch stream failed: " + e.getMessage());
    }
  }

  /** Reads the status line once, then looks for change contents, wherever reads split them. */
  private void scan(Stream stream, long now) throws IOException {
    while (readBuffer.hasRemaining()) {
      byte b = readBuffer.get();
      if (!stream.headersRead) {
        stream.header.append((char) b);
        if (b == '\n' && stream.header.length() >= 4 && stream.header.lastIndexOf("\r\n\r\n") == stream.header.length() - 4) {
          if (!stream.header.toString().startsWith("HTTP/1.1 200")) {
            throw new IOException("watch answered " + stream.header.toString().lines().findFirst().orElse(""));
          }
          stream.headersRead = true;
          synchronized (this) {
            streams.add(stream);
            open++;
          }
        }
      } else if (stream.matched < MARK.length) {
        stream.matched = b == MARK[stream.matched] ? stream.matched + 1 : b == MARK[0] ? 1 : 0;
      } else if (b >= '0' && b <= '9') {
        stream.number = stream.number * 10 + (b - '0');
      } else if (b == ' ') {
        stream.numbers[stream.numberIndex++] = stream.number;
        stream.number = 0;
      } else {
        int round = (int) stream.numbers[0];
        synchronized (this) {
          stream.received[round]++;
          deliveries[round]++;
        }
        latency[round].add(now - stream.number);
        stream.matched = 0;
        stream.number = 0;
        stream.numberIndex = 0;
      }
    }
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** One watch stream's progress through its bytes. */
  private static final class Stream {
    final ByteBuffer request;
    final StringBuilder header = new StringBuilder();
    final int[] received = new int[ROUNDS];
    final long[] numbers = new long[2];
    boolean headersRead;
    int matched;
    int numberIndex;
    long number;

    Stream(ByteBuffer request) {
      this.request = request;
    }
  }
}
