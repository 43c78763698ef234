package ark.broker;

import ark.broker.log.PartialDirectory;
import ark.broker.worker.KafkaWorkerSettings;
import ark.broker.worker.WorkerGroup;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * What the commands beside the server ({@code backup}, {@code export}, {@code import}) share: one directory as their
 * argument, the configuration as the server reads it, a Vert.x for the logs, and an exit status with a sentence for
 * the operator, never a stack trace.
 */
final class StateCommand {
  /** A call the command refuses, before it changed anything: said to the operator, exit status 2. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /** The command's work; returns what it did, in a sentence. */
  interface Work {
    String run(Vertx vertx, JsonObject config, Path dir) throws Exception;
  }

  private StateCommand() {
  }

  /**
   * Refuses while replicas run on the Kafka cluster the configuration names (they are members of its worker group):
   * what they write meanwhile would be lost by an export, or mixed into an import.
   */
  static void refuseWhileReplicasRun(JsonObject config) throws Exception {
    if (!Main.replicated(config)) {
      return;
    }
    KafkaWorkerSettings settings = KafkaWorkerSettings.from(config.getJsonObject("kafka"));
    int running = WorkerGroup.members(settings);
    if (running > 0) {
      throw new Refused(running + (running == 1 ? " replica runs" : " replicas run") + " on Kafka at "
          + settings.bootstrapServers() + " (members of the worker group " + settings.group() + "): stop every"
          + " replica first, so that nothing is written while the state moves");
    }
  }

  /**
   * @param usage the command's arguments, as the usage line shows them
   * @return the process's exit status: 0 once done, 2 for a wrong or refused call, 1 if it failed
   */
  static int run(String[] args, String usage, Map<String, String> env, PrintStream out, PrintStream err, Work work) {
    if (args.length != 2 || args[1].isBlank()) {
      err.println("usage: java -jar ark-broker.jar " + args[0] + " " + usage);
      return 2;
    }
    Vertx vertx = Vertx.vertx();
    try {
      JsonObject config = ConfigLoader.load(vertx, env).await();
      out.println(work.run(vertx, config, Path.of(args[1])));
      return 0;
    } catch (Refused | PartialDirectory.Taken refused) {
      err.println(refused.getMessage());
      return 2;
    } catch (Exception e) {
      err.println(Character.toUpperCase(args[0].charAt(0)) + args[0].substring(1) + " failed: " + e.getMessage());
      return 1;
    } finally {
      vertx.close().await();
    }
  }
}
