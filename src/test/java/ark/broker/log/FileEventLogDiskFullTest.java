package ark.broker.log;

import ark.broker.testing.Eventually;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A full or failing disk under {@link FileEventLog}, through its channel seam: writes fail at once with
 * a clear message while it lasts, a failed batch is cut off before anything else is written (so it is
 * not there after a restart), and the log takes writes again by itself once the disk does.
 */
class FileEventLogDiskFullTest {
  private final Vertx vertx = Vertx.vertx();
  private final Context context = vertx.getOrCreateContext();
  private final FaultyDisk disk = new FaultyDisk();
  @TempDir
  Path dir;

  @AfterEach
  void closeVertx() throws Exception {
    OnContext.await(vertx.close());
  }

  @Test
  void aFullDiskRefusesWritesKeepsNoneOfThemAndRecoversWhenSpaceReturns() throws Exception {
    OpenLog log = open();
    log.append("{\"n\":1}", "{\"n\":2}");
    long clean = cleanSize();

    disk.fill(10);
    List<String> refused = log.failures("{\"n\":3}", "{\"n\":4}", "{\"n\":5}");

    assertThat(refused).hasSize(3).allSatisfy(message -> assertThat(message)
        .contains(FaultyDisk.FULL).contains("this write was not stored"));
    assertThat(Files.size(segment())).as("the half-written batch is cut off").isEqualTo(clean);
    assertThat(log.log.cannotWrite()).contains(FaultyDisk.FULL);
    assertThat(log.failures("{\"n\":6}")).as("refused at once while the disk is full")
        .singleElement().asString().contains(FaultyDisk.FULL);

    healAndWait(log);

    assertThat(log.append("{\"n\":7}")).as("no gap where the refused writes were").containsExactly(3L);
    log.close();
    assertThat(open().seen).containsExactly("1:{\"n\":1}", "2:{\"n\":2}", "3:{\"n\":7}");
  }

  @Test
  void aBatchWhoseSyncFailedIsCutOffBeforeAnythingElseIsWritten() throws Exception {
    OpenLog log = openWithOneRecord();
    long clean = cleanSize();

    disk.failSync = true;
    List<String> refused = log.failures("{\"n\":2}");

    assertThat(refused).singleElement().asString().contains(FaultyDisk.IO_ERROR).contains("this write was not stored");
    assertThat(Files.size(segment())).as("written, not synced, and cut off again").isEqualTo(clean);
    assertThat(log.log.cannotWrite()).contains(FaultyDisk.IO_ERROR);

    healAndWait(log);
    log.append("{\"n\":3}");
    log.close();

    assertThat(open().seen).containsExactly("1:{\"n\":1}", "2:{\"n\":3}");
  }

  @Test
  void whenEvenTheCutBackFailsTheOutcomeIsUnknownAndTheLogWritesNothingAfterIt() throws Exception {
    OpenLog log = openWithOneRecord();
    long clean = cleanSize();

    disk.failSync = true;
    disk.failTruncate = true;
    List<String> refused = log.failures("{\"n\":2}");

    assertThat(refused).singleElement().asString().contains("may or may not have been stored")
        .contains("retry it with the same idempotency key");
    assertThat(Files.size(segment())).as("the record could not be cut off").isGreaterThan(clean);
    assertThat(log.failures("{\"n\":3}")).singleElement().asString().contains("this write was not stored");

    healAndWait(log);
    assertThat(log.append("{\"n\":4}")).containsExactly(2L);
    log.close();

    assertThat(open().seen).as("the probe cut the unknown write off before the next was written")
        .containsExactly("1:{\"n\":1}", "2:{\"n\":4}");
  }

  @Test
  void aLogVisibleBeforeSyncShowsABatchOnceWrittenAndAnswersItsWriterOnceSynced() throws Exception {
    OpenLog log = new OpenLog(true).open();
    disk.holdSyncs();

    Future<Long> appended = log.appendAll("{\"n\":1}").get(0);

    Eventually.until("the sink has the record before it is synced", () -> List.copyOf(log.seen),
        seen -> seen.contains("1:{\"n\":1}"));
    assertThat(appended.isComplete()).as("its writer waits for the sync").isFalse();
    disk.releaseSyncs();
    assertThat(OnContext.await(appended)).isEqualTo(1L);
  }

  @Test
  void anOrdinaryLogShowsABatchOnlyOnceSynced() throws Exception {
    OpenLog log = open();
    long clean = cleanSize();
    disk.holdSyncs();

    Future<Long> appended = log.appendAll("{\"n\":1}").get(0);

    Eventually.until("the record is written", () -> Files.size(segment()), size -> size > clean);
    assertThat(log.seen).as("not before it is synced").isEmpty();
    disk.releaseSyncs();
    assertThat(OnContext.await(appended)).isEqualTo(1L);
    assertThat(log.seen).containsExactly("1:{\"n\":1}");
  }

  @Test
  void aBatchReadersSawWhoseSyncFailedIsWrittenAgainOnceTheDiskTakesWrites() throws Exception {
    OpenLog log = new OpenLog(true).open();
    log.append("{\"n\":1}");

    disk.failSync = true;
    List<String> refused = log.failures("{\"n\":2}");

    assertThat(refused).singleElement().asString().contains(FaultyDisk.IO_ERROR)
        .contains("readers may have seen this write").contains("do not send it again");
    assertThat(log.seen).as("readers saw it").containsExactly("1:{\"n\":1}", "2:{\"n\":2}");
    assertThat(log.failures("{\"n\":3}")).as("refused at once until then").singleElement().asString()
        .contains("this write was not stored");

    healAndWait(log);
    assertThat(log.append("{\"n\":4}")).as("after the batch written again").containsExactly(3L);
    log.close();

    assertThat(open().seen).as("what readers saw is what the log keeps")
        .containsExactly("1:{\"n\":1}", "2:{\"n\":2}", "3:{\"n\":4}");
  }

  @Test
  void aSnapshotThatFailsHalfWayLeavesNoFileBehind() throws Exception {
    OpenLog log = open();
    log.append("{\"n\":1}");
    // A record that cannot be encoded fails the snapshot after its temporary file was created.
    List<EventLog.LogRecord> entries = List.of(new EventLog.LogRecord(1, "k", "a\nb".getBytes(StandardCharsets.UTF_8)));

    String failed = OnContext.await(OnContext.run(context, () -> log.log.compact(1, entries, record -> record)
        .transform(done -> Future.succeededFuture(done.succeeded() ? "written" : done.cause().getMessage()))));

    assertThat(failed).contains("line break");
    try (var files = Files.list(dir)) {
      assertThat(files.map(file -> file.getFileName().toString())).noneMatch(name -> name.endsWith(".tmp"));
    }
    assertThat(log.append("{\"n\":2}")).containsExactly(2L);
  }

  private OpenLog open() throws Exception {
    return new OpenLog(false).open();
  }

  private OpenLog openWithOneRecord() throws Exception {
    OpenLog log = open();
    log.append("{\"n\":1}");
    return log;
  }

  /** The size of the active segment, everything in it written and synced. */
  private long cleanSize() throws Exception {
    return Files.size(segment());
  }

  private void healAndWait(OpenLog log) throws Exception {
    disk.heal();
    Eventually.until("the log takes writes again", log.log::cannotWrite, Objects::isNull);
  }

  private Path segment() throws Exception {
    List<LogFile> segments = LogFile.list(dir, LogFile.SEGMENT);
    return segments.get(segments.size() - 1).path();
  }

  /** A log on the faulty disk, trying again every few milliseconds, remembering what its sink received. */
  private final class OpenLog {
    final FileEventLog log;
    final RecordingSink sink = new RecordingSink();
    final List<String> seen = sink.seen;

    OpenLog(boolean visibleBeforeSync) {
      log = new FileEventLog(vertx, dir, true, visibleBeforeSync, disk::wrap, 5);
    }

    OpenLog open() throws Exception {
      OnContext.await(OnContext.run(context, () -> log.open(sink)));
      return this;
    }

    List<Long> append(String... payloads) throws Exception {
      List<Long> positions = new ArrayList<>();
      for (Future<Long> appended : appendAll(payloads)) {
        positions.add(OnContext.await(appended));
      }
      return positions;
    }

    /** Each append's failure message, or "stored at N" for one that succeeded. */
    List<String> failures(String... payloads) throws Exception {
      List<String> messages = new ArrayList<>();
      for (Future<Long> appended : appendAll(payloads)) {
        messages.add(OnContext.await(appended.transform(done -> Future.succeededFuture(
            done.succeeded() ? "stored at " + done.result() : done.cause().getMessage()))));
      }
      return messages;
    }

    List<Future<Long>> appendAll(String... payloads) throws Exception {
      return OnContext.await(OnContext.run(context, () -> {
        List<Future<Long>> appended = new ArrayList<>();
        for (String payload : payloads) {
          appended.add(log.append("k", payload.getBytes(StandardCharsets.UTF_8)));
        }
        return Future.succeededFuture(appended);
      }));
    }

    void close() throws Exception {
      OnContext.await(OnContext.run(context, log::close));
    }
  }
}
