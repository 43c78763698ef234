package ark.broker.testing;

import ark.broker.ConfigLoader;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The broker as users run it: {@code java @conf/jvm.options -jar target/ark-broker.jar} in its own process. */
public final class BrokerProcess implements AutoCloseable {
  /** The jar under test; {@code -Dbroker.jar=} runs another build's (a benchmark comparing against an older commit). */
  private static final Path JAR = Path.of(System.getProperty("broker.jar", "target/ark-broker.jar"));
  /** The Java runtime that runs it; {@code -Dbroker.javaHome=} runs it on another (a benchmark comparing runtimes). */
  private static final Path JAVA = Path.of(System.getProperty("broker.javaHome", System.getProperty("java.home")), "bin", "java");
  /** The JVM options the broker ships with, which the README's command passes too. */
  public static final Path JVM_OPTIONS = Path.of("conf/jvm.options");
  /** Where the processes the tests start write their output, rather than the build's console. */
  private static final Path LOGS = Path.of("target/test-logs");
  private static final String MAX_HEAP = "1g";

  private final Process process;
  public final Path output;
  public final URI base;
  /** The MCP endpoint, when this process was given its MCP port. */
  public final URI mcp;

  private BrokerProcess(Process process, Path output, URI base, URI mcp) {
    this.process = process;
    this.output = output;
    this.base = base;
    this.mcp = mcp;
  }

  /** Starts the jar with {@code environment} added and waits until /readyz says ready. */
  public static BrokerProcess start(Path dataDir, int httpPort, Map<String, String> environment) throws Exception {
    return start(dataDir, httpPort, environment, List.of());
  }

  /**
   * The same under {@code launcher}: a command line that ends by running the java command appended to it, as a
   * benchmark limits a replica's CPU the way a container's limit does (see the bench package's CpuLimit).
   */
  public static BrokerProcess start(Path dataDir, int httpPort, Map<String, String> environment, List<String> launcher)
      throws Exception {
    BrokerProcess broker = launch(dataDir, httpPort, environment, MAX_HEAP, launcher);
    broker.awaitReady(Duration.ofSeconds(60));
    return broker;
  }

  /** Starts the jar without waiting for it; the port goes in HTTP_PORT unless the caller sets Ark's PORT. */
  public static BrokerProcess launch(Path dataDir, int httpPort, Map<String, String> environment) throws Exception {
    return launch(dataDir, httpPort, environment, MAX_HEAP);
  }

  /** The same with its heap capped at {@code maxHeap} ("256m"). */
  public static BrokerProcess launch(Path dataDir, int httpPort, Map<String, String> environment, String maxHeap)
      throws Exception {
    return launch(dataDir, httpPort, environment, maxHeap, List.of());
  }

  private static BrokerProcess launch(Path dataDir, int httpPort, Map<String, String> environment, String maxHeap,
      List<String> launcher) throws Exception {
    if (!Files.exists(JAR)) {
      throw new IllegalStateException(JAR + " is missing: process tests run after 'mvn package'");
    }
    Path output = logFile("broker-");
    List<String> command = new ArrayList<>(launcher);
    command.addAll(List.of(
        JAVA.toString(), "-Xmx" + maxHeap, "@" + JVM_OPTIONS, "-jar", JAR.toString()));
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(output.toFile());
    builder.environment().put("STORE_DATA_DIR", dataDir.toString());
    String mcpPort = environment.getOrDefault("MCP_PORT", Integer.toString(freePort()));
    builder.environment().put("MCP_PORT", mcpPort);
    if (!environment.containsKey("PORT")) {
      builder.environment().put("HTTP_PORT", Integer.toString(httpPort));
    }
    builder.environment().put("ACCESS_LOG_LEVEL", "WARN");
    // Hermetic: a developer's kubeconfig must not turn on Query patching against their cluster.
    builder.environment().put("KUBE_ENABLED", "false");
    // Tests want a broker up at once; the benchmarks that measure a start as shipped set it themselves.
    builder.environment().put("WARM_UP_SECONDS", "0");
    builder.environment().putAll(environment);
    return new BrokerProcess(builder.start(), output, URI.create("http://127.0.0.1:" + httpPort),
        URI.create("http://127.0.0.1:" + mcpPort + "/mcp"));
  }

  /** Ark's stores bounded to {@code bytes} each: what a broker on a small heap needs, or it refuses to start. */
  public static Map<String, String> storesBoundedTo(int bytes) {
    Map<String, String> environment = new java.util.HashMap<>();
    for (String store : List.of("MEMORY", "EVENTS", "QUERY_SESSIONS", "STREAMS", "TRACES")) {
      environment.put(store + "_MAX_BYTES", Integer.toString(bytes));
    }
    return environment;
  }

  /** Waits for the process to end by itself and returns its exit code. */
  public int awaitExit(Duration timeout) throws Exception {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("broker still running after " + timeout + ":\n" + output());
    }
    return process.exitValue();
  }

  /** Configuration, given as the environment variables a broker process reads ({@code kafka.bootstrapServers} is KAFKA_BOOTSTRAP_SERVERS). */
  public static Map<String, String> environmentOf(io.vertx.core.json.JsonObject config) {
    Map<String, String> environment = new java.util.HashMap<>();
    addLeaves(config, "", environment);
    return environment;
  }

  private static void addLeaves(io.vertx.core.json.JsonObject node, String prefix, Map<String, String> environment) {
    for (String key : node.fieldNames()) {
      if (node.getValue(key) instanceof io.vertx.core.json.JsonObject child) {
        addLeaves(child, prefix + key + ".", environment);
      } else {
        environment.put(ConfigLoader.environmentName(prefix + key), String.valueOf(node.getValue(key)));
      }
    }
  }

  /** A new file in target/test-logs for a process's output, named {@code prefix} and a unique number. */
  static Path logFile(String prefix) throws IOException {
    return Files.createTempFile(Files.createDirectories(LOGS), prefix, ".out");
  }

  /** An MCP port chosen now, so a restarted broker serves MCP where its clients left it. */
  public static Map<String, String> fixedMcpPort() throws IOException {
    return Map.of("MCP_PORT", Integer.toString(freePort()));
  }

  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  public void awaitReady(Duration timeout) throws Exception {
    awaitOk("broker", process, base.resolve("/readyz"), timeout, output);
  }

  /**
   * Waits until {@code probe} answers 200, backing off up to 250 ms between tries; fails with the process's output
   * should it exit first or not answer within {@code timeout}. For any server process a test or benchmark starts.
   */
  public static void awaitOk(String name, Process process, URI probe, Duration timeout, Path output) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = 20;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException(name + " exited with " + process.exitValue() + ":\n" + Files.readString(output));
      }
      try {
        HttpResponse<Void> answer = http.send(HttpRequest.newBuilder(probe).build(), HttpResponse.BodyHandlers.discarding());
        if (answer.statusCode() == 200) {
          return;
        }
      } catch (IOException notListeningYet) {
        // keep waiting
      }
      process.waitFor(pause, TimeUnit.MILLISECONDS);
      pause = Math.min(pause * 2, 250);
    }
    throw new IllegalStateException(name + " not ready within " + timeout + ":\n" + Files.readString(output));
  }

  /** SIGTERM, as Kubernetes and Docker ask a container to stop; returns at once (see {@link #awaitExit}). */
  public void terminate() {
    process.destroy();
  }

  /** SIGKILL: no shutdown hook, no flush, exactly what a crash or an OOM kill leaves behind. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  public String output() throws IOException {
    return Files.readString(output);
  }

  @Override
  public void close() throws Exception {
    stop(process);
  }

  /** SIGTERM, and SIGKILL if the process has not ended 20 s later. For any server process a test or benchmark starts. */
  public static void stop(Process process) throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }
}
