package ark.broker.testing;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * A single-node KRaft Kafka broker in its own process, run from the Kafka jars on the test class
 * path ({@code kafka.Kafka}, the same entry point as kafka-server-start.sh). Being a process, it can
 * be killed and started again on the same port and log directory, keeping what it acknowledged.
 */
public final class ForkedKafka implements TestKafka, AutoCloseable {
  private final Path dir;
  private final Path properties;
  /** What the Kafka processes print: target/test-logs/kafka-*.out. */
  private final Path output;
  /** What the Kafka broker logs: the output's name ending in .log. */
  private final Path logFile;
  private final int port;
  private final String classpath;
  private Process process;

  private ForkedKafka(Path dir, int port, int controllerPort) throws IOException {
    this.dir = dir;
    this.port = port;
    this.classpath = classpath();
    this.properties = dir.resolve("server.properties");
    this.output = BrokerProcess.logFile("kafka-");
    this.logFile = output.resolveSibling(output.getFileName().toString().replace(".out", ".log"));
    Files.writeString(properties, String.join("\n",
        "process.roles=broker,controller",
        "node.id=1",
        "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
        "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
        "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
        "controller.listener.names=CONTROLLER",
        "inter.broker.listener.name=PLAINTEXT",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
        "log.dirs=" + dir.resolve("data"),
        "num.partitions=1",
        "auto.create.topics.enable=false",
        "offsets.topic.replication.factor=1",
        "offsets.topic.num.partitions=1",
        "transaction.state.log.replication.factor=1",
        "transaction.state.log.min.isr=1",
        "share.coordinator.state.topic.replication.factor=1",
        "share.coordinator.state.topic.min.isr=1",
        "group.initial.rebalance.delay.ms=0",
        "group.min.session.timeout.ms=1000",
        // Restarted after a kill, the broker waits out its previous incarnation's session: keep that short.
        "broker.session.timeout.ms=1500",
        "broker.heartbeat.interval.ms=300",
        // The compaction test waits for the cleaner; by default it looks for work every 15 s.
        "log.cleaner.backoff.ms=100",
        ""));
  }

  static ForkedKafka launch() throws Exception {
    Path dir = Files.createTempDirectory("ark-test-kafka");
    ForkedKafka kafka = new ForkedKafka(dir, BrokerProcess.freePort(), BrokerProcess.freePort());
    kafka.run(List.of("kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(), "-c",
        kafka.properties.toString())).waitFor(60, TimeUnit.SECONDS);
    kafka.start();
    return kafka;
  }

  @Override
  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  @Override
  public synchronized OptionalLong pid() {
    return process == null ? OptionalLong.empty() : OptionalLong.of(process.pid());
  }

  @Override
  public synchronized void start() throws Exception {
    process = run(List.of("kafka.Kafka", properties.toString()));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers(), "request.timeout.ms", 1000,
        "default.api.timeout.ms", 2000))) {
      while (true) {
        try {
          admin.describeCluster().nodes().get(2, TimeUnit.SECONDS);
          return;
        } catch (Exception notYet) {
          if (!process.isAlive() || System.nanoTime() > deadline) {
            throw new IllegalStateException("Kafka did not start; see " + output, notYet);
          }
          process.waitFor(100, TimeUnit.MILLISECONDS);
        }
      }
    }
  }

  /** SIGKILL: what a crash leaves; the log directory keeps what the broker wrote. */
  @Override
  public synchronized void stop() throws Exception {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    if (process != null && process.isAlive()) {
      stop();
    }
    try (var files = Files.walk(dir)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  private Process run(List<String> main) throws IOException {
    // Logs by the tests' logback-test.xml (on this class path: WARN and above) into a file of its own beside the
    // output; without a configuration logback would let every DEBUG event through, to no appender, at Kafka's cost.
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xms256m", "-Xmx512m", "-XX:+UseSerialGC", "-Dark.test.log=" + logFile, "-cp", classpath));
    command.addAll(main);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()));
    builder.environment().put("LOG_LEVEL", "WARN");
    return builder.start();
  }

  /** The class path this code was loaded from: Maven's test class path, however the JVM was started. */
  private static String classpath() {
    for (ClassLoader loader = ForkedKafka.class.getClassLoader(); loader != null; loader = loader.getParent()) {
      if (loader instanceof URLClassLoader urls && urls.getURLs().length > 0) {
        List<String> paths = new ArrayList<>();
        for (URL url : urls.getURLs()) {
          try {
            paths.add(Path.of(url.toURI()).toString());
          } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalStateException("class path entry " + url + " is not a file", e);
          }
        }
        return String.join(java.io.File.pathSeparator, paths);
      }
    }
    return System.getProperty("java.class.path");
  }

  @Override
  public String toString() {
    return "Kafka process at " + bootstrapServers() + " (" + dir + ")";
  }

}
