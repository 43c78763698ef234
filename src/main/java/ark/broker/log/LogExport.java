package ark.broker.log;

import ark.broker.log.EventLog.LogRecord;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A store's state carried from one event log to another: from the embedded log to Kafka or back. The two number
 * records differently (the embedded log by its own positions, Kafka by offsets it assigns), and positions are what
 * records refer to (a question's resourceVersion), so records are not copied with their positions: the store restates
 * its state ({@link LogBackedView.Updates#restatedElsewhere}), as a snapshot would, and the restatement is appended to
 * the target anew, followed by the records the restatement does not stand for (in a store that only appends, those
 * that have not aged out). What has aged out at the source is left behind.
 *
 * <p>The export of one log is one file in the embedded log's record format: a header naming the format, a line per
 * record (its position at the source, its key, its payload, under a checksum), and a trailer counting the records, so
 * a damaged or incomplete export is refused before anything is imported.
 */
public final class LogExport {
  private static final String SUFFIX = ".records";
  private static final int BATCH = 1000;

  private LogExport() {
  }

  /** Where the export directory {@code dir} holds the export of the log named {@code log}. */
  public static Path file(Path dir, String log) {
    return dir.resolve(log + SUFFIX);
  }

  /**
   * Exports one store's log to {@code file}: {@code deploy} starts the store on the log it is handed, which restates
   * its state once it has replayed it, and is undeployed then; the records after what the restatement stands for are
   * read from {@code source} again.
   *
   * @param source opens the log to export (twice: for the store, then for the records after its restatement)
   * @param deploy deploys the store on the log it is handed; completes with the deployment's id
   * @return how many records the export holds
   */
  public static Future<Long> export(Vertx vertx, Supplier<EventLog> source,
                                    Function<EventLog, Future<String>> deploy, Path file) {
    Exported exported = new Exported(vertx, source.get());
    return deploy.apply(exported)
        .compose(deployment -> exported.restated.future()
            .compose(restated -> vertx.undeploy(deployment).map(restated)))
        .compose(restated -> vertx.executeBlocking(() -> new ExportFile(file, restated))
            .compose(out -> appendTail(source.get(), restated.upTo(), out)
                .eventually(() -> vertx.executeBlocking(() -> {
                  out.channel.close();
                  return null;
                }))));
  }

  private static Future<Long> appendTail(EventLog source, long upTo, ExportFile out) {
    Tail tail = new Tail(upTo, out);
    return source.open(tail)
        .eventually(source::close)
        .compose(read -> tail.failure != null ? Future.failedFuture(tail.failure) : Future.succeededFuture())
        .map(read -> {
          try {
            return out.finish();
          } catch (IOException e) {
            throw new IllegalStateException("the export file " + out.file + " could not be written: " + e.getMessage(), e);
          }
        });
  }

  /**
   * Checks the export of one log before anything is imported: every line intact, as many records as its trailer
   * counts.
   *
   * @return how many records it holds
   * @throws IllegalStateException if it is damaged or incomplete
   */
  public static long verify(Path file) throws IOException {
    try (RecordFile records = new RecordFile(file)) {
      long count = 0;
      for (RecordFile.Line line = records.next(); line != null; line = records.next()) {
        LogRecord record = line.record();
        if (record == null) {
          throw new IllegalStateException("The export " + file + " is damaged at byte " + line.offset());
        }
        if (record.position() == 0) {
          if (!trailer(count).equals(new String(record.payload(), StandardCharsets.UTF_8))) {
            throw new IllegalStateException("The export " + file + " does not hold the records its trailer counts");
          }
          return count;
        }
        count++;
      }
      throw new IllegalStateException("The export " + file + " has no trailer: it is incomplete");
    }
  }

  /**
   * Opens the target of an import; completes with how many records it holds already (an import goes only into one
   * that holds none). It is closed by the caller.
   */
  public static Future<Long> openTarget(EventLog target) {
    long[] records = new long[1];
    return target.open(new EventLog.RecordSink<Boolean>() {
      @Override
      public Boolean decode(long position, String key, byte[] payload) {
        return Boolean.TRUE;
      }

      @Override
      public Boolean decodeTombstone(long position, String key) {
        return Boolean.TRUE;
      }

      @Override
      public void apply(long position, Boolean record) {
        records[0]++;
      }
    }).map(opened -> records[0]);
  }

  /**
   * Appends the export of one log ({@link #verify verified}) to {@code target}, opened and empty, record after record
   * in their order, and completes once every one is durable there.
   *
   * @return how many records were appended
   */
  public static Future<Long> importInto(Vertx vertx, EventLog target, Path file) {
    return vertx.executeBlocking(() -> new RecordFile(file))
        .compose(records -> appendBatches(vertx, target, records, 0)
            .eventually(() -> vertx.executeBlocking(() -> {
              records.close();
              return null;
            })));
  }

  private static Future<Long> appendBatches(Vertx vertx, EventLog target, RecordFile records, long appended) {
    return vertx.executeBlocking(() -> nextBatch(records)).compose(batch -> {
      if (batch.isEmpty()) {
        return Future.succeededFuture(appended);
      }
      List<Future<Long>> written = new ArrayList<>(batch.size());
      for (LogRecord record : batch) {
        written.add(target.append(record.key(), record.payload()));
      }
      return Future.all(written).compose(durable -> appendBatches(vertx, target, records, appended + batch.size()));
    });
  }

  private static List<LogRecord> nextBatch(RecordFile records) throws IOException {
    List<LogRecord> batch = new ArrayList<>(BATCH);
    for (RecordFile.Line line = records.next(); line != null && line.record().position() != 0; line = records.next()) {
      batch.add(line.record());
      if (batch.size() == BATCH) {
        break;
      }
    }
    return batch;
  }

  private static String trailer(long count) {
    return "{\"records\":" + count + "}";
  }

  /** The restatement a store handed over: the records that stand for everything up to {@code upTo}. */
  private record Restated(long upTo, List<LogRecord> records) {
  }

  /**
   * The source log as the store sees it while it is exported: read as it is, never written to (the broker is stopped;
   * the store's own upkeep, should it try, is refused), and its snapshot taken as the export.
   */
  private static final class Exported implements EventLog {
    private final Vertx vertx;
    private final EventLog source;
    private final Promise<Restated> restated = Promise.promise();

    Exported(Vertx vertx, EventLog source) {
      this.vertx = vertx;
      this.source = source;
    }

    @Override
    public boolean isExported() {
      return true;
    }

    @Override
    public <T> Future<Void> open(RecordSink<T> sink) {
      return source.open(sink);
    }

    @Override
    public <T> Future<Void> compact(long upTo, List<T> entries, Function<T, LogRecord> toRecord) {
      return vertx.executeBlocking(() -> entries.stream().map(toRecord).toList())
          .onSuccess(records -> restated.tryComplete(new Restated(upTo, records)))
          .onFailure(restated::tryFail)
          .mapEmpty();
    }

    @Override
    public Future<Long> append(String key, byte[] payload) {
      return Future.failedFuture(new LogUnavailableException("the log is being exported: nothing is written to it", null));
    }

    @Override
    public Future<Long> remove(String key, byte[] deletion) {
      return append(key, deletion);
    }

    @Override
    public Future<Void> catchUp() {
      return source.catchUp();
    }

    @Override
    public Future<Void> close() {
      return source.close();
    }
  }

  /** The export file being written: the restatement first, then the records after it. */
  private static final class ExportFile {
    private final Path file;
    private final FileChannel channel;
    private final GrowableBuffer buffer = new GrowableBuffer();
    private long count;

    ExportFile(Path file, Restated restated) throws IOException {
      this.file = file;
      this.channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      RecordLine.encodeHeader(buffer);
      for (LogRecord record : restated.records()) {
        add(record);
      }
    }

    void add(LogRecord record) throws IOException {
      RecordLine.encode(record.position(), record.key(), record.payload(), buffer);
      count++;
      if (buffer.size() > (1 << 20)) {
        FileEventLog.writeFully(channel, buffer);
      }
    }

    long finish() throws IOException {
      RecordLine.encode(0, null, trailer(count).getBytes(StandardCharsets.UTF_8), buffer);
      FileEventLog.writeFully(channel, buffer);
      channel.force(true);
      return count;
    }
  }

  /** Takes the records after the restatement from the second reading of the source into the export file. */
  private static final class Tail implements EventLog.RecordSink<LogRecord> {
    private final long upTo;
    private final ExportFile out;
    /** Why the export cannot be complete; a log's sink skips a record that fails, so it is kept here instead. */
    private Exception failure;

    Tail(long upTo, ExportFile out) {
      this.upTo = upTo;
      this.out = out;
    }

    @Override
    public LogRecord decode(long position, String key, byte[] payload) {
      return new LogRecord(position, key, payload);
    }

    /** A key's end: in a log whose store restates all it keeps (no records after the restatement), never exported. */
    @Override
    public LogRecord decodeTombstone(long position, String key) {
      return new LogRecord(position, key, null);
    }

    @Override
    public void apply(long position, LogRecord record) {
      if (position <= upTo || failure != null) {
        return;
      }
      if (record.payload() == null) {
        failure = new IllegalStateException("the log ends key " + record.key() + " at position " + position
            + ", after what its store restated: an ended key cannot be exported as a record");
        return;
      }
      try {
        out.add(record);
      } catch (IOException e) {
        failure = e;
      }
    }
  }
}
