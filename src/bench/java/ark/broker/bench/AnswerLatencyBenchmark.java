package ark.broker.bench;

import ark.broker.testing.BrokerProcess;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Answer to agent: how long after an answer's PATCH returns its 2xx the waiting agent has the result,
 * for plain {@code tools/call ask_question} calls holding their SSE stream open and for task-augmented
 * calls waiting in {@code tasks/result}, with {@code -Dbench.agents} (default 2,000) agents waiting. The
 * broker runs as users run it ({@code java -jar}, -Xmx1g, fsync on); the agents and the person answering
 * them run in an {@link AnswerLatencyAgents} process of their own. Run with
 * {@code mvn -o -Pbench -DskipTests verify -Dbench.main=ark.broker.bench.AnswerLatencyBenchmark}; tune with
 * {@code -Dbench.agents=10000 -Dbench.warmup=2000 -Dbench.concurrency=4}; {@code -Dbench.jfr=answers.jfr} records
 * the broker (JFR, profile settings) while the measured answers run.
 */
public final class AnswerLatencyBenchmark {
  private static final Path TEST_CLASSES = Path.of("target/test-classes");
  private static final Path JAR = Path.of("target/ark-broker.jar");
  private static final long IDLE_MILLIS = 3000;

  public static void main(String[] args) throws Exception {
    int agents = Integer.getInteger("bench.agents", 2_000);
    int warmup = Integer.getInteger("bench.warmup", 2_000);
    int concurrency = Integer.getInteger("bench.concurrency", 4);
    String jfr = System.getProperty("bench.jfr");
    String loadBeforeRun = Machine.loadAverage();
    int restPort = BrokerProcess.freePort();
    int mcpPort = BrokerProcess.freePort();
    String connections = Integer.toString(2 * (agents + warmup) + 100);
    try (BrokerProcess broker = BrokerProcess.start(Files.createTempDirectory("ark-bench-answer"), restPort,
        Map.of("MCP_PORT", Integer.toString(mcpPort), "LOG_LEVEL", "WARN",
            // Every agent comes from this one address.
            "MCP_MAX_CONNECTIONS", connections, "MCP_MAX_CONNECTIONS_PER_CLIENT", connections,
            // The agents' pooled connections may idle through a long setup on a busy machine: the broker must
            // not close one just as the generator sends on it.
            "MCP_IDLE_TIMEOUT_SECONDS", "3600", "HTTP_IDLE_TIMEOUT_SECONDS", "3600"))) {
      Process generator = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx1g", "-cp", TEST_CLASSES + java.io.File.pathSeparator + JAR, AnswerLatencyAgents.class.getName(),
          "127.0.0.1", Integer.toString(restPort), Integer.toString(mcpPort), Integer.toString(agents),
          Integer.toString(warmup), Integer.toString(concurrency))
          .redirectError(ProcessBuilder.Redirect.INHERIT)
          .start();
      try {
        BufferedReader output = new BufferedReader(new InputStreamReader(generator.getInputStream(), StandardCharsets.UTF_8));
        Writer input = new OutputStreamWriter(generator.getOutputStream(), StandardCharsets.UTF_8);
        relayUntil(output, "waiting");
        String loadWhileWaiting = Machine.loadAverage();
        double idleBefore = Machine.cpuSeconds(broker.pid());
        Thread.sleep(IDLE_MILLIS);
        double idleCpu = Machine.cpuSeconds(broker.pid()) - idleBefore;
        double brokerBefore = Machine.cpuSeconds(broker.pid());
        double brokerSystemBefore = Machine.systemSeconds(broker.pid());
        double generatorBefore = Machine.cpuSeconds(generator.pid());
        if (jfr != null) {
          jcmd(broker.pid(), "JFR.start", "name=answers", "settings=profile");
        }
        long started = System.nanoTime();
        input.write("go\n");
        input.flush();
        String measured = relayUntil(output, "measured");
        double seconds = (System.nanoTime() - started) / 1e9;
        double brokerCpu = Machine.cpuSeconds(broker.pid()) - brokerBefore;
        double brokerSystem = Machine.systemSeconds(broker.pid()) - brokerSystemBefore;
        double generatorCpu = Machine.cpuSeconds(generator.pid()) - generatorBefore;
        int answers = Integer.parseInt(measured.split(" ")[1]);
        if (jfr != null) {
          jcmd(broker.pid(), "JFR.stop", "name=answers", "filename=" + Path.of(jfr).toAbsolutePath());
        }
        relayUntil(output, "done");
        System.out.printf("%nmachine: %d cores (%s); load average %s before the run, %s with all agents waiting%n",
            Runtime.getRuntime().availableProcessors(), Machine.cpuModel(), loadBeforeRun, loadWhileWaiting);
        System.out.printf("broker: java -jar, -Xmx1g, fsync on; %d agents waiting (half plain calls, half tasks),"
            + " after %d warm-up agents answered; broker CPU while they only wait: %.0f%% of a core%n", agents, warmup,
            100 * idleCpu * 1000 / IDLE_MILLIS);
        System.out.printf("during the measured answers (one at a time, then %d at a time; %.1f s): broker CPU %.2f s"
                + " (%.2f s in the kernel; %.0f%% of a core, %.2f ms per answer), generator CPU %.2f s (%.0f%% of a core)%n",
            concurrency, seconds, brokerCpu, brokerSystem, 100 * brokerCpu / seconds, 1000 * brokerCpu / answers, generatorCpu,
            100 * generatorCpu / seconds);
        System.out.println("limited by: the broker and the agents' process sharing these cores (and anything else"
            + " running), the fsync of each answer before its 2xx, and the generator's own event loops reading the"
            + " result (its latency is part of every figure)");
      } finally {
        generator.destroy();
      }
    }
  }

  private static void jcmd(long pid, String... command) throws Exception {
    java.util.List<String> line = new java.util.ArrayList<>(java.util.List.of(
        Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(pid)));
    line.addAll(java.util.List.of(command));
    new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
  }

  /** Prints the generator's lines until one starts with {@code word}, and returns that one. */
  private static String relayUntil(BufferedReader output, String word) throws IOException {
    for (String line = output.readLine(); line != null; line = output.readLine()) {
      System.out.println(line);
      if (line.startsWith(word)) {
        return line;
      }
    }
    throw new IllegalStateException("the agents' process ended before saying '" + word + "'");
  }

  private AnswerLatencyBenchmark() {
  }
}
