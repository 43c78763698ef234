package ark.broker.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A TCP load balancer in front of broker replicas, as a Kubernetes Service is: new connections go round robin to
 * the replicas whose /readyz answered 200 when last asked (every 100 ms), to the same port of each; a connection
 * stays with its replica until either side closes it; with no replica ready a new connection is closed at once.
 * One balancer per port ({@link #http} and {@link #mcp}), both following the same readiness.
 */
public final class ReadyBalancer implements AutoCloseable {
  /** A replica: where it answers /readyz, and its REST and MCP ports on loopback. */
  public record Replica(int httpPort, int mcpPort) {
  }

  private static final HttpClient READINESS = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(300)).build();

  private final List<Replica> replicas;
  private final AtomicReferenceArray<Boolean> ready;
  private final AtomicInteger next = new AtomicInteger();
  private final ServerSocket httpListener;
  private final ServerSocket mcpListener;
  private volatile boolean closed;
  public final URI http;
  public final URI mcp;

  public ReadyBalancer(List<Replica> replicas) throws IOException {
    this.replicas = List.copyOf(replicas);
    this.ready = new AtomicReferenceArray<>(replicas.size());
    for (int i = 0; i < replicas.size(); i++) {
      ready.set(i, false);
    }
    httpListener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    mcpListener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    http = URI.create("http://127.0.0.1:" + httpListener.getLocalPort());
    mcp = URI.create("http://127.0.0.1:" + mcpListener.getLocalPort() + "/mcp");
    daemon("balancer-readiness", this::followReadiness);
    daemon("balancer-http", () -> accept(httpListener, Replica::httpPort));
    daemon("balancer-mcp", () -> accept(mcpListener, Replica::mcpPort));
  }

  private void followReadiness() {
    while (!closed) {
      for (int i = 0; i < replicas.size(); i++) {
        ready.set(i, isReady(replicas.get(i)));
      }
      sleep(100);
    }
  }

  private static boolean isReady(Replica replica) {
    try {
      return READINESS.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + replica.httpPort() + "/readyz"))
          .timeout(Duration.ofMillis(500)).build(), HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
    } catch (IOException notListening) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void accept(ServerSocket listener, java.util.function.ToIntFunction<Replica> port) {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      Integer target = pick();
      if (target == null) {
        closeQuietly(client);
        continue;
      }
      Socket upstream = new Socket();
      try {
        upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port.applyAsInt(replicas.get(target))), 1000);
      } catch (IOException refused) {
        closeQuietly(client);
        closeQuietly(upstream);
        continue;
      }
      daemon("balancer-pipe", () -> pipe(client, upstream));
      daemon("balancer-pipe", () -> pipe(upstream, client));
    }
  }

  /** The next ready replica, round robin; null when none is. */
  private Integer pick() {
    for (int tried = 0; tried < replicas.size(); tried++) {
      int candidate = Math.floorMod(next.getAndIncrement(), replicas.size());
      if (ready.get(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** Copies until either side ends, then closes both: a client learns its replica went away. */
  private static void pipe(Socket from, Socket to) {
    byte[] buffer = new byte[16384];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
        out.write(buffer, 0, read);
        out.flush();
      }
    } catch (IOException ended) {
      // either side went away
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void daemon(String name, Runnable work) {
    Thread thread = new Thread(work, name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    httpListener.close();
    mcpListener.close();
  }
}
