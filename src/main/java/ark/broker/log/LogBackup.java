package ark.broker.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A consistent copy of every embedded log in a data directory, taken while a broker writes to it: each log's copy is a
 * prefix of the log, its newest snapshot and the segments after it up to the last record written when the copy began.
 * The copy is itself a data directory: a broker started on it (or on a copy of it) has exactly the records up to
 * each log's backup point, so every write acknowledged before the backup began, and nothing after that point.
 *
 * <p>Segments are only ever appended to, and snapshots written whole and renamed into place; so the files opened at one
 * instant hold that prefix even if the broker snapshots and deletes them meanwhile (an open file stays readable). A
 * snapshot that lands between listing and opening the files is met by trying again.
 */
public final class LogBackup {
  private static final Logger LOG = LoggerFactory.getLogger(LogBackup.class);
  private static final int ATTEMPTS = 10;

  private LogBackup() {
  }

  /**
   * Copies every log under {@code dataDir} into {@code target}, which must not exist yet, nor its partial copy
   * ({@link PartialDirectory}); the copy appears there only once complete (an interrupted backup leaves
   * {@code target.partial}).
   *
   * @return each log's backup point: the position of its last record in the copy
   */
  public static Map<String, Long> backup(Path dataDir, Path target) throws IOException {
    PartialDirectory.refuseTaken(target, "backup");
    if (!Files.isDirectory(dataDir)) {
      throw new IllegalArgumentException("Data directory " + dataDir + " does not exist");
    }
    Path partial = PartialDirectory.create(target, "backup");
    Map<String, Long> points = new TreeMap<>();
    try (DirectoryStream<Path> logs = Files.newDirectoryStream(dataDir, Files::isDirectory)) {
      for (Path log : logs) {
        if (!LogFile.list(log, LogFile.SEGMENT).isEmpty() || !LogFile.list(log, LogFile.SNAPSHOT).isEmpty()) {
          points.put(log.getFileName().toString(), copyLog(log, partial.resolve(log.getFileName())));
        }
      }
    }
    PartialDirectory.complete(partial, target);
    LOG.info("Backup of {} in {}: {}", dataDir, target, points);
    return points;
  }

  /** Copies one log; returns the position of its last record in the copy. */
  private static long copyLog(Path log, Path copy) throws IOException {
    for (int attempt = 1; ; attempt++) {
      List<Opened> files = new ArrayList<>();
      try {
        try {
          List<LogFile> segments = LogFile.list(log, LogFile.SEGMENT);
          List<LogFile> snapshots = LogFile.list(log, LogFile.SNAPSHOT);
          if (!snapshots.isEmpty()) {
            files.add(Opened.of(snapshots.get(snapshots.size() - 1)));
          }
          for (LogFile segment : segments) {
            files.add(Opened.of(segment));
          }
        } catch (NoSuchFileException snapshotted) {
          if (attempt == ATTEMPTS) {
            throw snapshotted;
          }
          continue;
        }
        Files.createDirectories(copy);
        long last = 0;
        for (Opened file : files) {
          Path to = copy.resolve(file.log.path().getFileName());
          try (FileChannel out = FileChannel.open(to, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long at = 0; at < file.size; ) {
              at += file.channel.transferTo(at, file.size - at, out);
            }
            out.force(true);
          }
          last = Math.max(last, LogFile.SNAPSHOT.equals(kindOf(file.log)) ? file.log.position() : lastRecordIn(to));
        }
        sync(copy);
        return last;
      } finally {
        for (Opened file : files) {
          file.channel.close();
        }
      }
    }
  }

  private static String kindOf(LogFile file) {
    return file.path().getFileName().toString().startsWith(LogFile.SNAPSHOT) ? LogFile.SNAPSHOT : LogFile.SEGMENT;
  }

  /**
   * The position of the segment copy's last record, 0 if it has none. A record the broker was writing as the copy was
   * taken may be cut off at its end: it is not acknowledged yet, and the copy ends before it.
   */
  private static long lastRecordIn(Path segment) throws IOException {
    long last = 0;
    long tornAt = -1;
    try (RecordFile file = new RecordFile(segment)) {
      for (RecordFile.Line line = file.next(); line != null; line = file.next()) {
        if (line.record() == null) {
          tornAt = line.offset();
        } else if (tornAt >= 0) {
          throw new IllegalStateException("Event log segment " + segment + " is damaged at byte " + tornAt
              + " before intact records: the log itself needs repair before it can be backed up");
        } else {
          last = line.record().position();
        }
      }
    }
    if (tornAt >= 0) {
      try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
        channel.truncate(tornAt);
        channel.force(true);
      }
    }
    return last;
  }

  /** Makes what was created, renamed or deleted in {@code dir} durable. */
  public static void sync(Path dir) throws IOException {
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true);
    }
  }

  /** A log file held open, with its length when opened: what the copy takes of it. */
  private record Opened(LogFile log, FileChannel channel, long size) {
    static Opened of(LogFile file) throws IOException {
      FileChannel channel = FileChannel.open(file.path(), StandardOpenOption.READ);
      return new Opened(file, channel, channel.size());
    }
  }
}
