package ark.broker;

import ark.broker.log.LogBackup;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

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
  static int run(String[] args) {
    if (args.length != 2) {
      System.err.println("usage: java -jar ark-broker.jar backup <new directory for the copy>");
      return 2;
    }
    Vertx vertx = Vertx.vertx();
    try {
      JsonObject config = ConfigLoader.load(vertx, System.getenv()).await();
      if (Main.replicated(config)) {
        System.err.println("kafka.bootstrapServers is set: the broker keeps its state in Kafka, which is backed up as"
            + " Kafka is (replication, MirrorMaker); this command copies the embedded log of store.dataDir");
        return 2;
      }
      Path dataDir = Path.of(config.getJsonObject("store").getString("dataDir"));
      Map<String, Long> points = LogBackup.backup(dataDir, Path.of(args[1]));
      System.out.println("Backed up " + dataDir + " to " + args[1] + "; each log up to position " + points);
      return 0;
    } catch (Exception e) {
      System.err.println("Backup failed: " + e.getMessage());
      return 1;
    } finally {
      vertx.close();
    }
  }
}
