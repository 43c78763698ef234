package ark.broker.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A file of the log's data directory: a segment named by its first position, or a snapshot named by
 * the position it covers. Zero-padded names sort in position order.
 */
record LogFile(Path path, long position) {
  static final String SEGMENT = "segment";
  static final String SNAPSHOT = "snapshot";
  private static final Pattern NAME = Pattern.compile("(segment|snapshot)-(\\d{20})\\.(log|snap)");

  static Path path(Path dir, String kind, long position) {
    return dir.resolve(String.format("%s-%020d.%s", kind, position, SEGMENT.equals(kind) ? "log" : "snap"));
  }

  static List<LogFile> list(Path dir, String kind) throws IOException {
    List<LogFile> files = new ArrayList<>();
    try (var entries = Files.newDirectoryStream(dir, kind + "-*")) {
      for (Path entry : entries) {
        Matcher matcher = NAME.matcher(entry.getFileName().toString());
        if (matcher.matches() && matcher.group(1).equals(kind)) {
          files.add(new LogFile(entry, Long.parseLong(matcher.group(2))));
        }
      }
    }
    files.sort(Comparator.comparingLong(LogFile::position));
    return files;
  }
}
