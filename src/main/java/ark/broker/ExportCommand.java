package ark.broker;

import ark.broker.bus.BusCodecs;
import ark.broker.bus.QuestionRetention;
import ark.broker.log.LogExport;
import ark.broker.log.PartialDirectory;
import ark.broker.mcp.McpSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code java -jar ark-broker.jar export <directory>}: every store's state, read from where the configuration keeps it
 * (the embedded log of {@code store.dataDir}, or Kafka's topics when {@code kafka.bootstrapServers} is set), written
 * to a new directory that {@code import} writes into another place: how a broker moves from one machine to replicas
 * on Kafka, and back. Each store restates its state as it would in a snapshot ({@link LogExport}); what has aged out
 * is left behind.
 *
 * <p>The broker must be stopped: an export is the state at one moment, and what a running broker writes after it
 * would be lost by the move. On the embedded log the data directory's lock refuses the export while a broker runs;
 * on Kafka, replicas in the worker group do.
 */
final class ExportCommand {
  static final String NAME = "export";

  private ExportCommand() {
  }

  /** @return the process's exit status: 0 once the export is complete, 2 for a wrong or refused call, 1 if it failed */
  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    return StateCommand.run(args, "<new directory for the export>", env, out, err, ExportCommand::export);
  }

  private static String export(Vertx vertx, JsonObject config, Path target) throws Exception {
    PartialDirectory.refuseTaken(target, "export");
    Path dataDir = Path.of(config.getJsonObject("store").getString("dataDir"));
    boolean replicated = Main.replicated(config);
    if (!replicated && !Files.isDirectory(dataDir)) {
      throw new StateCommand.Refused("Data directory " + dataDir + " (store.dataDir) does not exist: nothing to export");
    }
    StateCommand.refuseWhileReplicasRun(config);
    BusCodecs.register(vertx.eventBus());
    QuestionRetention retention = QuestionRetention.from(config.getJsonObject("retention"));
    McpSettings mcp = McpSettings.from(config.getJsonObject("mcp"), replicated ? null : dataDir, retention);
    Path partial = PartialDirectory.create(target, "export");
    Map<String, Long> records = new LinkedHashMap<>();
    try {
      for (Main.StoreOnLog onLog : Main.storesOnLogs(config, () -> mcp, new SimpleMeterRegistry())) {
        records.put(onLog.log(), LogExport.export(vertx, () -> onLog.open(vertx, config),
            log -> vertx.deployVerticle(onLog.store().apply(log)), LogExport.file(partial, onLog.log())).await());
      }
    } catch (Exception failed) {
      // Nothing half-exported is left behind to be mistaken for an export.
      try (var written = Files.walk(partial)) {
        for (Path path : written.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
      throw failed;
    }
    PartialDirectory.complete(partial, target);
    return "Exported " + Main.whereStateIs(config) + " to " + target + "; records per log: " + records;
  }
}
