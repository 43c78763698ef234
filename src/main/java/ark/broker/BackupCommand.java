package ark.broker;

import ark.broker.log.LogBackup;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * {@code java -jar ark-broker.jar backup <directory>}: a consistent copy of the embedded logs of the data directory
 * the configuration names ({@code store.dataDir}), taken while the broker runs. The copy is a data directory: restore
 * by starting a broker on it (or on a copy of it).
 */
final class BackupCommand {
  static final String NAME = "backup";

  private BackupCommand() {
  }

  /** @return the process's exit status: 0 once the copy is complete, 2 for a wrong call, 1 if it failed */
  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    return StateCommand.run(args, "<new directory for the copy>", env, out, err, (vertx, config, target) -> {
      if (Main.replicated(config)) {
        throw new StateCommand.Refused("kafka.bootstrapServers is set: the broker keeps its state in Kafka, which is"
            + " backed up as Kafka is (replication, MirrorMaker); this command copies the embedded log of store.dataDir");
      }
      Path dataDir = Path.of(config.getJsonObject("store").getString("dataDir"));
      Map<String, Long> points = LogBackup.backup(dataDir, target);
      return "Backed up " + dataDir + " to " + target + "; each log up to position " + points;
    });
  }
}
