package ark.broker;

import ark.broker.auth.AuthSettings;
import ark.broker.auth.Authenticators;
import ark.broker.edge.ListenAddress;
import ark.broker.log.FileEventLog;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What can refuse a start, checked before anything slow (the warm-up, replaying the log, reaching Kafka), each
 * refusal naming the setting, the file or port, and the reason: whether the stores' bounds fit the heap; whether the
 * broker may listen where it is told to without authentication and can read its tokens; whether the embedded log's
 * data directory can be written and is not held by another process; whether the ports are free on addresses of this
 * machine.
 */
final class StartupChecks {
  /** The event logs that live under {@code store.dataDir} when there is no Kafka, one directory each. */
  static final List<String> LOGS = List.of("questions", "sessions");

  private StartupChecks() {
  }

  /** Runs every check; returns the authentication the broker then starts with. */
  static Authenticators run(JsonObject config) {
    HeapBudget.check(config, Runtime.getRuntime().maxMemory());
    Authenticators authenticators = authenticators(config);
    if (!Main.replicated(config)) {
      dataDirectory(Path.of(config.getJsonObject("store").getString("dataDir")));
    }
    for (String surface : List.of("http", "mcp")) {
      JsonObject port = config.getJsonObject(surface);
      ListenAddress.requireFree(surface, port.getString("host"), port.getInteger("port"));
    }
    return authenticators;
  }

  /**
   * Decides whether the broker may run as configured ({@link Authenticators#start}) and reads its tokens.
   *
   * @throws IllegalStateException when it must not start this way, naming the settings
   */
  static Authenticators authenticators(JsonObject config) {
    return Authenticators.start(AuthSettings.from(config.getJsonObject("auth")), new TreeMap<>(Map.of(
        "http.host", config.getJsonObject("http").getString("host"),
        "mcp.host", config.getJsonObject("mcp").getString("host"))));
  }

  private static void dataDirectory(Path dataDir) {
    for (String log : LOGS) {
      try {
        FileEventLog.checkUsable(dataDir.resolve(log));
      } catch (IllegalStateException inUse) {
        throw new IllegalStateException(inUse.getMessage() + " (store.dataDir, STORE_DATA_DIR): each broker needs a"
            + " data directory of its own; replicas share their state through Kafka instead", inUse);
      } catch (IOException e) {
        throw unusable(dataDir, e);
      }
    }
  }

  /** The directory, the file that failed, and why, in words: "permission denied", "Read-only file system"... */
  private static IllegalStateException unusable(Path dataDir, IOException failure) {
    String file = failure instanceof FileSystemException onFile && onFile.getFile() != null
        ? onFile.getFile() : dataDir.toString();
    String reason;
    if (failure instanceof AccessDeniedException) {
      reason = "permission denied to user " + System.getProperty("user.name");
    } else if (failure instanceof FileAlreadyExistsException) {
      reason = "it is a file, not a directory";
    } else if (failure instanceof FileSystemException onFile && onFile.getReason() != null) {
      reason = onFile.getReason();
    } else {
      reason = String.valueOf(failure.getMessage());
    }
    return new IllegalStateException("the data directory " + dataDir.toAbsolutePath().normalize()
        + " (store.dataDir, STORE_DATA_DIR) cannot be used: " + file + ": " + reason + "; make it writable for the"
        + " broker's user or set STORE_DATA_DIR to a directory that is", failure);
  }
}
