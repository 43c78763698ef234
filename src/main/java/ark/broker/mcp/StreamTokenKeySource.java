package ark.broker.mcp;

import ark.broker.mcp.protocol.StreamTokenKeys;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where the keys that sign MCP stream tokens come from. Configured ({@code mcp.streamTokenKeys}, or the file
 * {@code mcp.streamTokenKeysFile} names, one key a line), they are the same on every replica: the first signs,
 * all verify. Not configured, a broker on its own file log makes a key once and keeps it in its data directory,
 * so streams cut by a restart still resume; replicas without one each make a key for their process only, and say
 * that a stream then resumes only on the replica that started it.
 */
final class StreamTokenKeySource {
  private static final Logger LOG = LoggerFactory.getLogger(StreamTokenKeySource.class);
  static final String KEY_FILE = "mcp-stream-token.key";

  private StreamTokenKeySource() {
  }

  /**
   * @param mcp the {@code mcp} section
   * @param dataDir the data directory of a broker on its own file log, or null for replicas sharing Kafka
   * @throws IllegalArgumentException for both settings at once, a key too short, or a file that cannot be read
   */
  static StreamTokenKeys from(JsonObject mcp, Path dataDir) {
    List<String> listed = mcp.getJsonArray("streamTokenKeys").stream().map(String::valueOf).map(String::trim)
        .filter(key -> !key.isEmpty()).toList();
    String file = mcp.getString("streamTokenKeysFile").trim();
    if (!listed.isEmpty() && !file.isEmpty()) {
      throw new IllegalArgumentException("set mcp.streamTokenKeys (MCP_STREAM_TOKEN_KEYS) or "
          + "mcp.streamTokenKeysFile (MCP_STREAM_TOKEN_KEYS_FILE), not both");
    }
    if (!listed.isEmpty()) {
      return keys(() -> listed, "mcp.streamTokenKeys");
    }
    if (!file.isEmpty()) {
      return keys(() -> readKeys(Path.of(file)), "mcp.streamTokenKeysFile");
    }
    if (dataDir != null) {
      return StreamTokenKeys.of(List.of(ownKey(dataDir.resolve(KEY_FILE))));
    }
    LOG.warn("mcp.streamTokenKeys is not set: this replica signs MCP stream tokens with a key of its own, so a cut "
        + "stream resumes only on it; give every replica the same key (MCP_STREAM_TOKEN_KEYS) to resume on any");
    return StreamTokenKeys.of(List.of(StreamTokenKeys.newKey()));
  }

  private static StreamTokenKeys keys(Supplier<List<String>> keys, String where) {
    try {
      return StreamTokenKeys.of(keys.get());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  private static List<String> readKeys(Path file) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8).stream().map(String::trim)
          .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    } catch (IOException e) {
      throw new IllegalArgumentException(file + " cannot be read (" + e.getClass().getSimpleName() + ")", e);
    }
  }

  /** The key kept in {@code file}, made the first time (readable by this user only, written whole or not at all). */
  private static String ownKey(Path file) {
    try {
      if (!Files.exists(file)) {
        Files.createDirectories(file.getParent());
        Path made = file.getFileSystem().supportedFileAttributeViews().contains("posix")
            ? Files.createTempFile(file.getParent(), KEY_FILE, ".new",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
            : Files.createTempFile(file.getParent(), KEY_FILE, ".new");
        Files.writeString(made, StreamTokenKeys.newKey() + "\n", StandardCharsets.UTF_8);
        try {
          Files.move(made, file);
        } catch (FileAlreadyExistsException kept) {
          Files.delete(made);
        }
      }
      List<String> keys = readKeys(file);
      if (keys.isEmpty()) {
        throw new IllegalArgumentException(file + " holds no key: delete it, and the broker makes a new one");
      }
      return keys.get(0);
    } catch (IOException e) {
      throw new UncheckedIOException("the MCP stream token key " + file + " cannot be made", e);
    }
  }
}
