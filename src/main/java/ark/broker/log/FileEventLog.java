package ark.broker.log;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
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
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The embedded log: append-only segment files in a data directory, one checksummed line per record,
 * fsync before an append completes. Appends that arrive while a write is in progress are written and
 * synced together (group commit), so throughput grows with concurrency instead of collapsing.
 *
 * <p>On open it loads the newest snapshot, replays the segments after it, and cuts off a torn or
 * damaged tail of the last segment (what a crash mid-write leaves). Damage anywhere else stops the
 * start, since cutting it off would lose acknowledged writes. {@link #compact} writes a snapshot and
 * deletes the segments it covers, so start-up time follows the number of questions, not of events.
 *
 * <p>A full or failing disk: when a batch cannot be written or synced, its appends fail, and the active
 * segment is first cut back (truncated, and synced if the disk lets it) to the end of the last batch that
 * was written and synced, so a write answered with a failure is not in the log, now or after a restart
 * (only a power loss before the cut-back is synced could bring it back). Until the disk takes
 * writes again, appends fail at once and {@link #cannotWrite} says why; every {@code probeMillis} the
 * writer cuts the segment back again, syncs the directory and writes, syncs and deletes a probe file;
 * once that succeeds the log takes writes again, by itself. Should even the cut-back fail (a failing
 * disk rather than a full one), the failed batch's outcome is unknown: its appends fail with a message
 * that says so, and only a retry (with the same idempotency key) tells.
 *
 * <p>A log {@linkplain #visibleBeforeSync(Vertx, Path, boolean) visible before sync} hands each batch to its
 * sink once it is written to the file (so it survives the broker being killed), and answers the appends once it is
 * synced (so it survives the machine). Its readers thus never wait for the disk; the price is a batch whose sync
 * fails: readers have seen it, so it is not withdrawn but kept, and written again at the same positions, before
 * anything else, once the disk takes writes. Its appends still fail, saying so.
 */
public final class FileEventLog implements EventLog {
  private static final Logger LOG = LoggerFactory.getLogger(FileEventLog.class);
  private static final int MAX_BATCH = 8192;
  /** How often a log that cannot write tries again. */
  static final long PROBE_MILLIS = 1000;
  /** The probe must be able to write this much: about a batch of ordinary records. */
  private static final int PROBE_BYTES = 64 * 1024;
  private static final String PROBE_FILE = "write-probe.tmp";

  private final Vertx vertx;
  private final Path dir;
  private final boolean fsync;
  private final boolean visibleBeforeSync;
  /** Wraps every channel the writer writes through: the seam where tests make the disk fail. */
  private final UnaryOperator<FileChannel> channels;
  private final long probeNanos;
  private final BlockingQueue<WriterTask> queue = new LinkedBlockingQueue<>();

  private Context context;
  private RecordSink<Object> sink;
  /** Why the log takes no writes now (a disk error), or null while it does. */
  private volatile String failure;

  private FileChannel lockChannel;
  private FileLock lock;
  private FileChannel active;
  /** Position of the last record written; touched only by the writer thread once it runs. */
  private long writtenUpTo;
  /** Length of the active segment up to the end of its last written (and synced) batch; writer thread. */
  private long cleanLength;
  /** When a log that cannot write tries again; writer thread. */
  private long nextProbe;
  /** A batch readers have seen whose sync failed, to be written again before anything else; writer thread. */
  private Unsynced unsynced;
  private Thread writer;

  public FileEventLog(Vertx vertx, Path dir, boolean fsync) {
    this(vertx, dir, fsync, false, UnaryOperator.identity(), PROBE_MILLIS);
  }

  /** A log whose sink gets each batch once it is written, before it is synced (see the class comment). */
  public static FileEventLog visibleBeforeSync(Vertx vertx, Path dir, boolean fsync) {
    return new FileEventLog(vertx, dir, fsync, true, UnaryOperator.identity(), PROBE_MILLIS);
  }

  /** @param channels wraps each segment and probe channel (tests inject disk faults through it) */
  FileEventLog(Vertx vertx, Path dir, boolean fsync, boolean visibleBeforeSync, UnaryOperator<FileChannel> channels,
               long probeMillis) {
    this.vertx = vertx;
    this.dir = dir;
    this.fsync = fsync;
    this.visibleBeforeSync = visibleBeforeSync;
    this.channels = channels;
    this.probeNanos = TimeUnit.MILLISECONDS.toNanos(probeMillis);
  }

  private sealed interface WriterTask permits Append, Roll, Stop {
  }

  /** Its position is handed out by the writer, so a batch that failed leaves no gap behind. */
  private record Append(String key, byte[] payload, Promise<Long> promise) implements WriterTask {
  }

  /** An append in the batch being written, at its position. */
  private record Placed(long position, Append append) {
  }

  /** Starts a new segment; completes with its first position. */
  private record Roll(Promise<Long> promise) implements WriterTask {
  }

  private record Stop() implements WriterTask {
  }

  /** The bytes of a batch readers have seen, and the position of its last record. */
  private record Unsynced(byte[] bytes, long lastPosition) {
  }

  @Override
  public <T> Future<Void> open(RecordSink<T> sink) {
    this.context = vertx.getOrCreateContext();
    this.sink = new SkippingSink("Event log " + dir, sink);
    return vertx.executeBlocking(() -> {
      try {
        writtenUpTo = recover();
        cleanLength = active.size();
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
    String reason = failure;
    if (reason != null) {
      return Future.failedFuture(notStored(reason));
    }
    Promise<Long> promise = Promise.promise();
    queue.add(new Append(key, payload, promise));
    return promise.future();
  }

  /** Null while the log takes writes; else why it does not (the disk is full or failing). */
  @Override
  public String cannotWrite() {
    String reason = failure;
    return reason == null ? null : "the " + dir.getFileName() + " event log cannot be written (" + reason + ")";
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
    int lastFormat = FormatVersion.CURRENT;
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
        SegmentRead read = readSegment(segments.get(i), snapshotPosition, last, i == segments.size() - 1, replay);
        last = read.last();
        lastFormat = read.format();
        records += last - Math.max(before, snapshotPosition);
      }
      replay.finish();
    }
    activate(segments.isEmpty() ? null : segments.get(segments.size() - 1), lastFormat, last);
    LOG.info("Event log {} replayed: {} records up to position {} in {} ms", dir, records, last,
        (System.nanoTime() - started) / 1_000_000);
    return last;
  }

  /**
   * Appends go to the last segment if it is of the current format; a segment of an older format is left as it is
   * (it is read as that format) and appends start a new one. A segment that is empty (new, or a torn header cut off)
   * gets its header first.
   */
  private void activate(LogFile lastSegment, int lastFormat, long last) throws IOException {
    if (lastSegment != null && Files.size(lastSegment.path()) == 0) {
      active = openSegment(lastSegment.path(), StandardOpenOption.CREATE);
      writeHeader(active);
    } else if (lastSegment != null && lastFormat == FormatVersion.CURRENT) {
      active = openSegment(lastSegment.path(), StandardOpenOption.CREATE);
    } else {
      if (lastSegment != null) {
        LOG.info("Event log {} holds records of format {}: they are read as such, and new records go to a new segment "
            + "of format {}", dir, lastFormat, FormatVersion.CURRENT);
      }
      active = openSegment(LogFile.path(dir, LogFile.SEGMENT, last + 1), StandardOpenOption.CREATE_NEW);
      writeHeader(active);
    }
    syncDirectory();
  }

  /** Writes (and syncs) the header line that names the format, first in a new file. */
  private void writeHeader(FileChannel file) throws IOException {
    GrowableBuffer header = new GrowableBuffer();
    RecordLine.encodeHeader(header);
    writeFully(file, header);
    if (fsync) {
      file.force(false);
    }
  }

  /** The last position read from a segment and the format of its records. */
  private record SegmentRead(long last, int format) {
  }

  private long readSnapshot(LogFile snapshot, ReplayDecoder replay) throws IOException {
    long count = 0;
    try (RecordFile file = new RecordFile(snapshot.path())) {
      for (RecordFile.Line line = file.next(); line != null; line = file.next()) {
        LogRecord record = line.record();
        if (record == null) {
          throw new IllegalStateException("Snapshot " + snapshot.path() + " is damaged at byte " + line.offset()
              + "; move it aside to start from the segments, if they still hold everything");
        }
        if (record.position() == 0) {
          return verifyTrailer(snapshot, record, count);
        }
        replay.add(record.position(), record.key(), record.payload());
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

  /** Replays one segment; returns the last position read, and the segment's format. */
  private SegmentRead readSegment(LogFile segment, long snapshotPosition, long last, boolean isLast,
                                  ReplayDecoder replay) throws IOException {
    try (RecordFile file = new RecordFile(segment.path())) {
      for (RecordFile.Line line = file.next(); line != null; line = file.next()) {
        LogRecord record = line.record();
        if (record != null && record.position() <= snapshotPosition) {
          continue;
        }
        if (record == null || record.position() != last + 1) {
          damaged(segment, line.offset(), file, isLast, record == null
              ? "a torn or damaged record"
              : "position " + record.position() + " where " + (last + 1) + " was expected");
          return new SegmentRead(last, file.format());
        }
        replay.add(record.position(), record.key(), record.payload());
        last = record.position();
      }
      return new SegmentRead(last, file.format());
    }
  }

  private void damaged(LogFile segment, long offset, RecordFile rest, boolean isLast, String what) throws IOException {
    boolean intactRecordsFollow = false;
    for (RecordFile.Line line = rest.next(); line != null && !intactRecordsFollow; line = rest.next()) {
      intactRecordsFollow = line.record() != null;
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
    List<Placed> pending = new ArrayList<>();
    GrowableBuffer buffer = new GrowableBuffer();
    while (true) {
      try {
        WriterTask first = failure == null ? queue.take()
            : queue.poll(Math.max(0, nextProbe - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (first != null) {
          batch.add(first);
        }
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
          if (unsynced != null) {
            LOG.error("Event log {} stops with records up to position {} that readers saw but the disk never synced: "
                + "they are not in the log after a restart", dir, unsynced.lastPosition());
          }
          return;
        }
      }
      flush(buffer, pending);
      batch.clear();
      if (failure != null && System.nanoTime() - nextProbe >= 0) {
        probe();
      }
    }
  }

  private void encode(Append append, GrowableBuffer buffer, List<Placed> pending) {
    String reason = failure;
    if (reason != null) {
      fail(append.promise, notStored(reason));
      return;
    }
    long position = writtenUpTo + pending.size() + 1;
    try {
      RecordLine.encode(position, append.key, append.payload, buffer);
      pending.add(new Placed(position, append));
    } catch (IllegalArgumentException e) {
      fail(append.promise, new LogUnavailableException("Event log " + dir + " refused a malformed record", e));
    }
  }

  private void flush(GrowableBuffer buffer, List<Placed> pending) {
    if (pending.isEmpty()) {
      return;
    }
    List<Placed> written = List.copyOf(pending);
    pending.clear();
    boolean visible = false;
    try {
      writeFully(active, buffer.asByteBuffer());
      Object[] decoded = decode(written);
      if (visibleBeforeSync) {
        context.runOnContext(ignored -> apply(written, decoded));
        visible = true;
      }
      if (fsync) {
        active.force(false);
      }
      writtenUpTo = written.get(written.size() - 1).position;
      cleanLength += buffer.size();
      context.runOnContext(ignored -> {
        if (!visibleBeforeSync) {
          apply(written, decoded);
        }
        for (Placed placed : written) {
          placed.append.promise.complete(placed.position);
        }
      });
    } catch (IOException | RuntimeException e) {
      if (visible) {
        unsynced = new Unsynced(buffer.toBytes(), written.get(written.size() - 1).position);
      }
      failed(written, e);
    } finally {
      buffer.clear();
    }
  }

  private Object[] decode(List<Placed> written) {
    Object[] decoded = new Object[written.size()];
    for (int i = 0; i < decoded.length; i++) {
      decoded[i] = sink.decode(written.get(i).position, written.get(i).append.key, written.get(i).append.payload);
    }
    return decoded;
  }

  private void apply(List<Placed> written, Object[] decoded) {
    for (int i = 0; i < decoded.length; i++) {
      sink.apply(written.get(i).position, decoded[i]);
    }
  }

  /**
   * A batch could not be written or synced: cuts it off again before anything else is written, so none
   * of it is in the log (after a restart either), and refuses writes until a probe succeeds.
   */
  private void failed(List<Placed> batch, Exception cause) {
    String reason = reasonOf(cause);
    failure = reason;
    nextProbe = System.nanoTime() + probeNanos;
    LogUnavailableException outcome;
    try {
      active.truncate(cleanLength);
      outcome = unsynced == null ? notStored(reason) : new LogUnavailableException("the broker could not sync its "
          + "event log (" + reason + "); readers may have seen this write already, so it is written again once the "
          + "disk takes writes: do not send it again", cause);
      syncQuietly();
      LOG.error("Event log {} failed to write a batch of {} records ({}); cut them off again and takes no writes until "
          + "the disk does, trying every {} ms", dir, batch.size(), reason, probeNanos / 1_000_000);
    } catch (IOException | RuntimeException e) {
      outcome = new LogUnavailableException("the broker cannot write its event log now (" + reason
          + "): this write may or may not have been stored; retry it with the same idempotency key", cause);
      LOG.error("Event log {} failed to write a batch of {} records ({}) and could not cut them off again ({}); they may "
          + "appear after a restart. It takes no writes until the cut-back and a probe succeed", dir, batch.size(),
          reason, reasonOf(e));
    }
    for (Placed placed : batch) {
      fail(placed.append.promise, outcome);
    }
  }

  /**
   * Tries whether the disk takes writes again: cuts the active segment back to its clean length, syncs
   * the directory, and writes and syncs a probe file of about a batch. Clears the failure if all succeed.
   */
  private void probe() {
    nextProbe = System.nanoTime() + probeNanos;
    Path probe = dir.resolve(PROBE_FILE);
    try {
      cutBack();
      syncDirectory();
      try (FileChannel channel = channels.apply(FileChannel.open(probe, StandardOpenOption.CREATE,
          StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING))) {
        writeFully(channel, ByteBuffer.allocate(PROBE_BYTES));
        channel.force(false);
      } finally {
        Files.deleteIfExists(probe);
      }
      writeUnsynced();
    } catch (IOException | RuntimeException e) {
      LOG.debug("Event log {} still cannot write: {}", dir, reasonOf(e));
      return;
    }
    LOG.info("Event log {} can write again (it could not: {}); taking writes", dir, failure);
    failure = null;
  }

  /** Writes and syncs again the batch readers saw whose sync failed, at its positions. */
  private void writeUnsynced() throws IOException {
    if (unsynced == null) {
      return;
    }
    writeFully(active, ByteBuffer.wrap(unsynced.bytes()));
    active.force(false);
    writtenUpTo = unsynced.lastPosition();
    cleanLength += unsynced.bytes().length;
    unsynced = null;
  }

  /** Truncates the active segment to the end of its last clean batch and syncs that. */
  private void cutBack() throws IOException {
    active.truncate(cleanLength);
    active.force(true);
  }

  /**
   * Syncs a cut-back if the disk lets it. If not (the sync itself failed), the file no longer holds the
   * batch, for this process and any restart of it; only a power loss before the next probe, which syncs
   * the cut-back before any further write, could bring it back.
   */
  private void syncQuietly() {
    try {
      active.force(true);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Event log {} could not sync its cut-back yet: {}", dir, reasonOf(e));
    }
  }

  private void roll(Roll roll) {
    String reason = failure;
    if (reason != null) {
      fail(roll.promise, notStored(reason));
      return;
    }
    long first = writtenUpTo + 1;
    Path nextPath = LogFile.path(dir, LogFile.SEGMENT, first);
    FileChannel next = null;
    try {
      next = openSegment(nextPath, StandardOpenOption.CREATE_NEW);
      writeHeader(next);
    } catch (IOException e) {
      // A segment left behind would claim positions the current one goes on to hold.
      discard(next, nextPath);
      LOG.warn("Event log {} could not start a new segment ({}); goes on with the current one", dir, reasonOf(e));
      fail(roll.promise, new LogUnavailableException("Event log " + dir + " cannot start a new segment", e));
      return;
    }
    FileChannel previous = active;
    active = next;
    cleanLength = 0;
    try {
      previous.close();
      syncDirectory();
    } catch (IOException e) {
      // Records in a segment whose name may not be durable are not durable either: write none until a probe syncs it.
      failure = reasonOf(e);
      nextProbe = System.nanoTime() + probeNanos;
      LOG.error("Event log {} could not sync its directory after starting a new segment ({}); takes no writes "
          + "until it can", dir, failure);
      fail(roll.promise, notStored(failure));
      return;
    }
    context.runOnContext(ignored -> roll.promise.complete(first));
  }

  private static void discard(FileChannel channel, Path path) {
    try {
      if (channel != null) {
        channel.close();
      }
      Files.deleteIfExists(path);
    } catch (IOException e) {
      LOG.debug("Could not delete {}: {}", path, reasonOf(e));
    }
  }

  private FileChannel openSegment(Path path, StandardOpenOption create) throws IOException {
    return channels.apply(FileChannel.open(path, create, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
  }

  /** What a client is told about a write the log refused without writing any of it. */
  private static LogUnavailableException notStored(String reason) {
    return new LogUnavailableException("the broker cannot write its event log now (" + reason
        + "): this write was not stored; retry later", null);
  }

  private static String reasonOf(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
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
      RecordLine.encodeHeader(buffer);
      for (T entry : entries) {
        LogRecord record = toRecord.apply(entry);
        RecordLine.encode(record.position(), record.key(), record.payload(), buffer);
        if (buffer.size() > (1 << 20)) {
          writeFully(out, buffer);
        }
      }
      RecordLine.encode(0, null, ("{\"records\":" + entries.size() + "}").getBytes(StandardCharsets.UTF_8), buffer);
      writeFully(out, buffer);
      out.force(true);
    } catch (IOException | RuntimeException e) {
      // On a full disk a half-written snapshot would keep the space the log needs.
      Files.deleteIfExists(tmp);
      throw e;
    }
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    syncDirectory();
    LOG.info("Event log {} snapshot at position {}: {} records in {} ms", dir, upTo, entries.size(),
        (System.nanoTime() - started) / 1_000_000);
  }

  static void writeFully(FileChannel out, GrowableBuffer buffer) throws IOException {
    writeFully(out, buffer.asByteBuffer());
    buffer.clear();
  }

  private static void writeFully(FileChannel out, ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      out.write(bytes);
    }
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

  /**
   * Checks, keeping nothing open, that a log could be opened in {@code dir} now: no other process holds it, and
   * the directory exists or can be made and takes a new file. A start can so fail at once, before anything slow,
   * saying why; {@link #open} fails the same way should anything change meanwhile.
   *
   * @throws IllegalStateException when another broker process holds the directory
   * @throws IOException why it cannot be used (permission denied, a read-only or full file system...), naming the file
   */
  public static void checkUsable(Path dir) throws IOException {
    Files.createDirectories(dir);
    try (FileChannel channel = openLockFile(dir)) {
      FileLock held = tryLock(channel, dir);
      try {
        Path probe = dir.resolve(PROBE_FILE);
        Files.write(probe, new byte[] {'\n'});
        Files.delete(probe);
      } finally {
        held.release();
      }
    }
  }

  private void acquireLock() throws IOException {
    lockChannel = openLockFile(dir);
    try {
      lock = tryLock(lockChannel, dir);
    } catch (IllegalStateException inUse) {
      lockChannel.close();
      throw inUse;
    }
  }

  private static FileChannel openLockFile(Path dir) throws IOException {
    return FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
  }

  /** The lock of the directory; fails when another process (or another log in this one) holds it. */
  private static FileLock tryLock(FileChannel channel, Path dir) throws IOException {
    FileLock held;
    try {
      held = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      held = null;
    }
    if (held == null) {
      throw new IllegalStateException("Data directory " + dir + " is in use by another broker process");
    }
    return held;
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
