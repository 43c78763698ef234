package ark.broker.log;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads one file of the embedded log (a segment or a snapshot) line by line: the header first, which names the
 * {@link FormatVersion format} the other lines are in (a file without one is of format 1), then its records. A file
 * of a newer format is refused as it is opened.
 */
final class RecordFile implements AutoCloseable {
  private final Path path;
  private final InputStream in;
  private final LineScanner scanner;
  private int format = FormatVersion.UNMARKED;
  private boolean started;

  /** One line: its record, or null when it is torn or damaged; and where in the file it starts. */
  record Line(EventLog.LogRecord record, long offset) {
  }

  RecordFile(Path path) throws IOException {
    this.path = path;
    this.in = Files.newInputStream(path);
    this.scanner = new LineScanner(in);
  }

  Path path() {
    return path;
  }

  /** The format of the file's records: known once the first line has been read. */
  int format() {
    return format;
  }

  /** The next record's line, the header passed over; null at the end of the file. */
  Line next() throws IOException {
    LineScanner.Line line = scanner.next();
    if (line == null) {
      return null;
    }
    EventLog.LogRecord record = line.complete() ? RecordLine.decode(line.bytes(), line.from(), line.to(), format) : null;
    if (!started) {
      started = true;
      int named = record != null && record.position() == 0 ? FormatVersion.ofHeader(record.payload()) : -1;
      if (named > FormatVersion.CURRENT) {
        throw new IllegalStateException(FormatVersion.newer("Event log file " + path, named));
      }
      if (named > 0) {
        format = named;
        return next();
      }
    }
    return new Line(record, line.offset());
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
