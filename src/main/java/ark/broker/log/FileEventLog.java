package ark.broker.log;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;

/**
 * The embedded log: append-only segment files in a data directory, one checksummed line per record,
 * fsync before an append completes. Appends that arrive while a write is in progress are written and
 * synced together (group commit), so throughput grows with concurrency instead of collapsing.
 *
 * <p>On open it loads the newest snapshot, replays the segments after it, and cuts off a torn or
 * damaged tail of the last segment (what a crash mid-write leaves). Damage anywhere else stops the
 * start, since cutting it off would lose acknowledged writes. {@link #compact} writes a snapshot and
 * deletes the segments it covers, so start-up time follows the number of questions, not of events.
 */
public final class FileEventLog implements EventLog {
  private static final Logger LOG = LoggerFactory.getLogger(FileEventLog.class);
  private static final int MAX_BATCH = 8192;

  private final Vertx vertx;
  private final Path dir;
  private final boolean fsync;
  private final BlockingQueue<WriterTask> queue = new LinkedBlockingQueue<>();

  private Context context;
  private RecordSink<Object> sink;
  /** Next position to hand out; touched only on the opener's context. */
  private long nextPosition;
  private volatile LogUnavailableException failure;

  private FileChannel lockChannel;
  private FileLock lock;
  private FileChannel active;
  /** Position of the last record written; touched only by the writer thread once it runs. */
  private long writtenUpTo;
  private Thread writer;

  public FileEventLog(Vertx vertx, Path dir, boolean fsync) {
    this.vertx = vertx;
    this.dir = dir;
    this.fsync = fsync;
  }

  private sealed interface WriterTask permits Append, Roll, Stop {
  }

  private record Append(long position, byte[] payload, Promise<Long> promise) implements WriterTask {
  }

  /** Starts a new segment; completes with its first position. */
  private record Roll(Promise<Long> promise) implements WriterTask {
  }

  private record Stop() implements WriterTask {
  }

  @Override
  public <T> Future<Void> open(RecordSink<T> sink) {
    this.context = vertx.getOrCreateContext();
    this.sink = new SkippingSink("Event log " + dir, sink);
    return vertx.executeBlocking(() -> {
      try {
        long last = recover();
        nextPosition = last + 1;
        writtenUpTo = last;
        return null;
      } catch (IOException | RuntimeException e) {
        releaseLock();
        throw e;
      }
    }).map(ignored -> {
      writer = new Thread(this::writeLoop, "ark-broker-log-writer-" + dir.getFileName());
      writer.setDaemon(true);
      writer.start();
      return null;
    });
  }

  @Override
  public Future<Long> append(String key, byte[] payload) {
    if (failure != null) {
      return Future.failedFuture(failure);
    }
    Promise<Long> promise = Promise.promise();
    queue.add(new Append(nextPosition++, payload, promise));
    return promise.future();
  }

  /** This log keeps no keys: the deletion record is how the sink learns the key ended. */
  @Override
  public Future<Long> remove(String key, byte[] deletion) {
    return append(key, deletion);
  }

  /** The sink has every durable record already: an append completes only after the sink received it. */
  @Override
  public Future<Void> catchUp() {
    return Future.succeededFuture();
  }

  @Override
  public <T> Future<Void> compact(long upTo, List<T> entries, Function<T, LogRecord> toRecord) {
    Promise<Long> rolled = Promise.promise();
    queue.add(new Roll(rolled));
    return rolled.future().compose(first -> vertx.executeBlocking(() -> {
      writeSnapshot(upTo, entries, toRecord);
      deleteCoveredFiles(upTo);
      return null;
    }));
  }

  @Override
  public Future<Void> close() {
    if (writer == null) {
      return vertx.executeBlocking(() -> {
        releaseLock();
        return null;
      });
    }
    queue.add(new Stop());
    return vertx.executeBlocking(() -> {
      writer.join();
      active.close();
      releaseLock();
      return null;
    });
  }

  // ---- recovery (worker thread, before the writer starts) ----

  private long recover() throws IOException {
    Files.createDirectories(dir);
    acquireLock();
    try (var stale = Files.newDirectoryStream(dir, "*.tmp")) {
      for (Path tmp : stale) {
        Files.delete(tmp);
      }
    }
    long started = System.nanoTime();
    long snapshotPosition = 0;
    long records = 0;
    long last;
    List<LogFile> segments = LogFile.list(dir, LogFile.SEGMENT);
    try (ReplayDecoder replay = new ReplayDecoder(sink)) {
      List<LogFile> snapshots = LogFile.list(dir, LogFile.SNAPSHOT);
      if (!snapshots.isEmpty()) {
        LogFile newest = snapshots.get(snapshots.size() - 1);
        records += readSnapshot(newest, replay);
        snapshotPosition = newest.position();
      }
      last = snapshotPosition;
      for (int i = 0; i < segments.size(); i++) {
        long before = last;
        last = readSegment(segments.get(i), snapshotPosition, last, i == segments.size() - 1, replay);
        records += last - Math.max(before, snapshotPosition);
      }
      replay.finish();
    }
    Path activePath = segments.isEmpty()
        ? LogFile.path(dir, LogFile.SEGMENT, last + 1)
        : segments.get(segments.size() - 1).path();
    active = FileChannel.open(activePath, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    syncDirectory();
    LOG.info("Event log {} replayed: {} records up to position {} in {} ms", dir, records, last,
        (System.nanoTime() - started) / 1_000_000);
    return last;
  }

  private long readSnapshot(LogFile snapshot, ReplayDecoder replay) throws IOException {
    long count = 0;
    try (InputStream in = Files.newInputStream(snapshot.path())) {
      LineScanner scanner = new LineScanner(in);
      for (LineScanner.Line line = scanner.next(); line != null; line = scanner.next()) {
        LogRecord record = line.complete() ? RecordLine.decode(line.bytes(), line.from(), line.to()) : null;
        if (record == null) {
          throw new IllegalStateException("Snapshot " + snapshot.path() + " is damaged at byte " + line.offset()
              + "; move it aside to start from the segments, if they still hold everything");
        }
        if (record.position() == 0) {
          return verifyTrailer(snapshot, record, count);
        }
        replay.add(record.position(), record.payload());
        count++;
      }
    }
    throw new IllegalStateException("Snapshot " + snapshot.path() + " has no trailer: it is incomplete");
  }

  private static long verifyTrailer(LogFile snapshot, LogRecord trailer, long count) {
    String expected = "{\"records\":" + count + "}";
    if (!expected.equals(new String(trailer.payload(), StandardCharsets.UTF_8))) {
      throw new IllegalStateException("Snapshot " + snapshot.path() + " does not hold the records its trailer counts");
    }
    return count;
  }

  /** Replays one segment; returns the last position read. */
  private long readSegment(LogFile segment, long snapshotPosition, long last, boolean isLast, ReplayDecoder replay)
      throws IOException {
    try (InputStream in = Files.newInputStream(segment.path())) {
      LineScanner scanner = new LineScanner(in);
      for (LineScanner.Line line = scanner.next(); line != null; line = scanner.next()) {
        LogRecord record = line.complete() ? RecordLine.decode(line.bytes(), line.from(), line.to()) : null;
        if (record != null && record.position() <= snapshotPosition) {
          continue;
        }
        if (record == null || record.position() != last + 1) {
          damaged(segment, line.offset(), scanner, isLast, record == null
              ? "a torn or damaged record"
              : "position " + record.position() + " where " + (last + 1) + " was expected");
          return last;
        }
        replay.add(record.position(), record.payload());
        last = record.position();
      }
    }
    return last;
  }

  private void damaged(LogFile segment, long offset, LineScanner rest, boolean isLast, String what) throws IOException {
    boolean intactRecordsFollow = false;
    for (LineScanner.Line line = rest.next(); line != null && !intactRecordsFollow; line = rest.next()) {
      intactRecordsFollow = line.complete() && RecordLine.decode(line.bytes(), line.from(), line.to()) != null;
    }
    if (!isLast || intactRecordsFollow) {
      throw new IllegalStateException("Event log segment " + segment.path() + " has " + what + " at byte " + offset
          + " followed by intact records; refusing to cut off acknowledged writes");
    }
    long size = Files.size(segment.path());
    try (FileChannel channel = FileChannel.open(segment.path(), StandardOpenOption.WRITE)) {
      channel.truncate(offset);
      channel.force(true);
    }
    LOG.warn("Event log segment {} ended with {} at byte {}: cut off {} bytes (a write that never completed)",
        segment.path(), what, offset, size - offset);
  }

  // ---- writing (the writer thread) ----

  private void writeLoop() {
    List<WriterTask> batch = new ArrayList<>();
    List<Append> pending = new ArrayList<>();
    GrowableBuffer buffer = new GrowableBuffer();
    while (true) {
      try {
        batch.add(queue.take());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      queue.drainTo(batch, MAX_BATCH);
      for (WriterTask task : batch) {
        if (task instanceof Append append) {
          encode(append, buffer, pending);
          continue;
        }
        flush(buffer, pending);
        if (task instanceof Roll roll) {
          roll(roll);
        } else {
          return;
        }
      }
      flush(buffer, pending);
      batch.clear();
    }
  }

  private void encode(Append append, GrowableBuffer buffer, List<Append> pending) {
    if (failure != null) {
      fail(append.promise, failure);
      return;
    }
    try {
      RecordLine.encode(append.position, append.payload, buffer);
      pending.add(append);
    } catch (IllegalArgumentException e) {
      failure = new LogUnavailableException("Event log " + dir + " refused a malformed record", e);
      fail(append.promise, e);
    }
  }

  private void flush(GrowableBuffer buffer, List<Append> pending) {
    if (pending.isEmpty()) {
      return;
    }
    List<Append> written = List.copyOf(pending);
    pending.clear();
    try {
      var bytes = buffer.asByteBuffer();
      while (bytes.hasRemaining()) {
        active.write(bytes);
      }
      if (fsync) {
        active.force(false);
      }
      writtenUpTo = written.get(written.size() - 1).position;
    } catch (IOException | RuntimeException e) {
      failure = new LogUnavailableException("Event log " + dir + " cannot be written: " + e.getMessage(), e);
      LOG.error("Event log {} failed a write; it takes no more writes until the broker restarts", dir, e);
      for (Append append : written) {
        fail(append.promise, failure);
      }
      return;
    } finally {
      buffer.clear();
    }
    Object[] decoded = new Object[written.size()];
    for (int i = 0; i < decoded.length; i++) {
      decoded[i] = sink.decode(written.get(i).position, written.get(i).payload);
    }
    context.runOnContext(ignored -> {
      for (int i = 0; i < decoded.length; i++) {
        Append append = written.get(i);
        sink.apply(append.position, decoded[i]);
        append.promise.complete(append.position);
      }
    });
  }

  private void roll(Roll roll) {
    try {
      long first = writtenUpTo + 1;
      active.close();
      active = FileChannel.open(LogFile.path(dir, LogFile.SEGMENT, first),
          StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
      syncDirectory();
      context.runOnContext(ignored -> roll.promise.complete(first));
    } catch (IOException e) {
      failure = new LogUnavailableException("Event log " + dir + " cannot start a new segment: " + e.getMessage(), e);
      LOG.error("Event log {} failed to start a new segment", dir, e);
      fail(roll.promise, failure);
    }
  }

  private void fail(Promise<?> promise, Throwable cause) {
    context.runOnContext(ignored -> promise.fail(cause));
  }

  // ---- snapshots (a worker thread, one at a time) ----

  private <T> void writeSnapshot(long upTo, List<T> entries, Function<T, LogRecord> toRecord) throws IOException {
    long started = System.nanoTime();
    Path target = LogFile.path(dir, LogFile.SNAPSHOT, upTo);
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    GrowableBuffer buffer = new GrowableBuffer();
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (T entry : entries) {
        LogRecord record = toRecord.apply(entry);
        RecordLine.encode(record.position(), record.payload(), buffer);
        if (buffer.size() > (1 << 20)) {
          writeFully(out, buffer);
        }
      }
      RecordLine.encode(0, ("{\"records\":" + entries.size() + "}").getBytes(StandardCharsets.UTF_8), buffer);
      writeFully(out, buffer);
      out.force(true);
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    syncDirectory();
    LOG.info("Event log {} snapshot at position {}: {} records in {} ms", dir, upTo, entries.size(),
        (System.nanoTime() - started) / 1_000_000);
  }

  private static void writeFully(FileChannel out, GrowableBuffer buffer) throws IOException {
    var bytes = buffer.asByteBuffer();
    while (bytes.hasRemaining()) {
      out.write(bytes);
    }
    buffer.clear();
  }

  /** Deletes older snapshots and every segment whose records all lie at or below {@code upTo}. */
  private void deleteCoveredFiles(long upTo) throws IOException {
    List<LogFile> segments = LogFile.list(dir, LogFile.SEGMENT);
    for (int i = 0; i + 1 < segments.size(); i++) {
      if (segments.get(i + 1).position() <= upTo + 1) {
        Files.delete(segments.get(i).path());
      }
    }
    for (LogFile snapshot : LogFile.list(dir, LogFile.SNAPSHOT)) {
      if (snapshot.position() < upTo) {
        Files.delete(snapshot.path());
      }
    }
    syncDirectory();
  }

  // ---- files ----

  private void acquireLock() throws IOException {
    lockChannel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      lock = lockChannel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      lockChannel.close();
      throw new IllegalStateException("Data directory " + dir + " is in use by another broker process");
    }
  }

  private void releaseLock() throws IOException {
    if (lock != null) {
      lock.release();
      lockChannel.close();
      lock = null;
    }
  }

  private void syncDirectory() throws IOException {
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true);
    }
  }
}
