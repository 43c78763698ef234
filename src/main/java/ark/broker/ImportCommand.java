package ark.broker;

import ark.broker.log.EventLog;
import ark.broker.log.LogExport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar ark-broker.jar import <directory>}: writes an {@code export} into where the configuration keeps
 * the state (the embedded log of {@code store.dataDir}, or Kafka's topics when {@code kafka.bootstrapServers} is set).
 * Only into logs that hold nothing yet: an import never merges into live state, so a target that holds any record is
 * refused before anything is written. Start the broker on the target once the import is done.
 */
final class ImportCommand {
  static final String NAME = "import";

  private ImportCommand() {
  }

  /** @return the process's exit status: 0 once the import is complete, 2 for a wrong or refused call, 1 if it failed */
  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    return StateCommand.run(args, "<directory an export wrote>", env, out, err, ImportCommand::importInto);
  }

  private static String importInto(Vertx vertx, JsonObject config, Path export) throws Exception {
    List<Main.StoreOnLog> stores = Main.storesOnLogs(config, () -> {
      throw new IllegalStateException("an import starts no store");
    }, new SimpleMeterRegistry());
    Map<String, Long> exported = new LinkedHashMap<>();
    for (Main.StoreOnLog onLog : stores) {
      Path file = LogExport.file(export, onLog.log());
      if (!Files.isRegularFile(file)) {
        throw new StateCommand.Refused(export + " is no export of this version: it has no " + file.getFileName());
      }
      try {
        exported.put(onLog.log(), LogExport.verify(file));
      } catch (IllegalStateException damaged) {
        throw new StateCommand.Refused(damaged.getMessage() + "; nothing was imported");
      }
    }
    StateCommand.refuseWhileReplicasRun(config);
    Map<String, EventLog> targets = new LinkedHashMap<>();
    Map<String, Long> held = new LinkedHashMap<>();
    try {
      for (Main.StoreOnLog onLog : stores) {
        EventLog target = onLog.open(vertx, config);
        targets.put(onLog.log(), target);
        long records = LogExport.openTarget(target).await();
        if (records > 0) {
          held.put(onLog.log(), records);
        }
      }
      if (!held.isEmpty()) {
        throw new StateCommand.Refused("The target, " + Main.whereStateIs(config) + ", holds state already (records per"
            + " log: " + held + "); an import goes only into an empty data directory or new topics, never into live"
            + " state. Nothing was imported");
      }
      for (Main.StoreOnLog onLog : stores) {
        LogExport.importInto(vertx, targets.get(onLog.log()), LogExport.file(export, onLog.log())).await();
      }
    } finally {
      Future.join(targets.values().stream().map(EventLog::close).toList()).await();
    }
    return "Imported " + export + " into " + Main.whereStateIs(config) + "; records per log: " + exported;
  }
}
