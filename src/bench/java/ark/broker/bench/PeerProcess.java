package ark.broker.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Another questions server, e.g. Ark's own, run fresh by a benchmark in place of the broker so the two are measured
 * the same way on the same machine ({@code -Dbench.peerCommand="node /path/dist/main.js"}): the command gets the
 * port to listen on as {@code PORT} in its environment and is ready once {@code GET /health} answers 200.
 */
final class PeerProcess implements AutoCloseable {
  private static final Duration READY_WITHIN = Duration.ofSeconds(60);

  final URI base;
  private final Process process;
  private final Path output;

  private PeerProcess(Process process, URI base, Path output) {
    this.process = process;
    this.base = base;
    this.output = output;
  }

  /** The command from {@code -Dbench.peerCommand} (split at spaces), or null when the broker is to be measured. */
  static List<String> commandFromProperties() {
    String command = System.getProperty("bench.peerCommand", "").trim();
    return command.isEmpty() ? null : List.of(command.split("\\s+"));
  }

  static PeerProcess start(List<String> command, int port, Path output) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    builder.environment().put("PORT", Integer.toString(port));
    PeerProcess peer = new PeerProcess(builder.start(), URI.create("http://127.0.0.1:" + port), output);
    peer.awaitHealthy();
    return peer;
  }

  long pid() {
    return process.pid();
  }

  private void awaitHealthy() throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("peer exited with " + process.exitValue() + ":\n" + Files.readString(output));
      }
      try {
        if (http.send(HttpRequest.newBuilder(base.resolve("/health")).build(), HttpResponse.BodyHandlers.discarding())
            .statusCode() == 200) {
          return;
        }
      } catch (IOException notListeningYet) {
        // keep waiting
      }
      process.waitFor(50, TimeUnit.MILLISECONDS);
    }
    throw new IllegalStateException("peer not healthy within " + READY_WITHIN + ":\n" + Files.readString(output));
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(20, TimeUnit.SECONDS);
    }
  }
}
