package ark.broker.bench;

import ark.broker.testing.BrokerProcess;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Another questions server, e.g. Ark's own, run fresh by a benchmark in place of the broker so the two are measured
 * the same way on the same machine ({@code -Dbench.peerCommand="node /path/dist/main.js"}): the command gets the
 * port to listen on as {@code PORT} in its environment and is ready once {@code GET /health} answers 200.
 */
final class PeerProcess implements AutoCloseable {
  private static final Duration READY_WITHIN = Duration.ofSeconds(60);

  final URI base;
  private final Process process;

  private PeerProcess(Process process, URI base) {
    this.process = process;
    this.base = base;
  }

  /** The command from {@code -Dbench.peerCommand} (split at spaces), or null when the broker is to be measured. */
  static List<String> commandFromProperties() {
    String command = System.getProperty("bench.peerCommand", "").trim();
    return command.isEmpty() ? null : List.of(command.split("\\s+"));
  }

  static PeerProcess start(List<String> command, int port, Path output) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    builder.environment().put("PORT", Integer.toString(port));
    PeerProcess peer = new PeerProcess(builder.start(), URI.create("http://127.0.0.1:" + port));
    BrokerProcess.awaitOk("peer", peer.process, peer.base.resolve("/health"), READY_WITHIN, output);
    return peer;
  }

  long pid() {
    return process.pid();
  }

  @Override
  public void close() throws InterruptedException {
    BrokerProcess.stop(process);
  }
}
