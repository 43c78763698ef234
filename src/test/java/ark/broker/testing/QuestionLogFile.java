package ark.broker.testing;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntFunction;
import java.util.zip.CRC32C;

/** Writes an event log the way the broker writes its own, for tests that need a long history fast. */
public final class QuestionLogFile {
  private QuestionLogFile() {
  }

  /** One segment in {@code dataDir}/questions holding {@code count} creations, each with {@code contentChars} of content. */
  public static void writeCreations(Path dataDir, int count, int contentChars) throws Exception {
    String padding = "x".repeat(Math.max(0, contentChars));
    writeRecords(dataDir.resolve("questions"), count, i -> "\"q-" + i + "\" {\"type\":\"question_created\",\"question\":"
        + "{\"id\":\"q-" + i + "\",\"recipient\":\"ark://users/john\",\"channels\":[],\"content\":\"Question " + i + "?"
        + padding + "\",\"priority\":\"medium\",\"blocking\":true,\"status\":\"pending\","
        + "\"createdAt\":\"2026-01-01T00:00:00Z\",\"updatedAt\":\"2026-01-01T00:00:00Z\",\"deliveries\":[]},"
        + "\"at\":\"2026-01-01T00:00:00Z\"}");
  }

  /**
   * One segment in {@code logDir} (a store's log directory under the data directory) holding {@code count} records:
   * {@code keyAndRecord} gives the one at each position from 1, as its quoted key, a space, and its JSON.
   */
  public static void writeRecords(Path logDir, int count, IntFunction<String> keyAndRecord) throws Exception {
    Files.createDirectories(logDir);
    try (BufferedWriter out = Files.newBufferedWriter(logDir.resolve(String.format("segment-%020d.log", 1)),
        StandardCharsets.UTF_8)) {
      out.write(line("0 {\"format\":2}"));
      for (int i = 1; i <= count; i++) {
        out.write(line(i + " " + keyAndRecord.apply(i)));
      }
    }
  }

  /** A line of the log: the checksum of what follows it, then that. */
  private static String line(String checked) {
    CRC32C crc = new CRC32C();
    crc.update(checked.getBytes(StandardCharsets.UTF_8));
    return String.format("%08x %s%n", crc.getValue(), checked);
  }
}
