package ark.broker.log;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class FileEventLogTest {
  private final Vertx vertx = Vertx.vertx();
  private final Context context = vertx.getOrCreateContext();
  @TempDir
  Path dir;

  @AfterEach
  void closeVertx() throws Exception {
    await(vertx.close());
  }

  /** A log opened on one context, remembering every record its sink received. */
  private final class OpenLog {
    final FileEventLog log = new FileEventLog(vertx, dir, true);
    final RecordingSink sink = new RecordingSink();
    final List<String> seen = sink.seen;

    OpenLog open() throws Exception {
      onContext(() -> log.open(sink));
      return this;
    }

    List<Long> append(String... payloads) throws Exception {
      List<Future<Long>> appended = new ArrayList<>();
      await(onContextFuture(() -> {
        for (String payload : payloads) {
          appended.add(log.append("k", payload.getBytes(StandardCharsets.UTF_8)));
        }
        return Future.all(appended);
      }));
      return appended.stream().map(Future::result).toList();
    }

    void close() throws Exception {
      onContext(log::close);
    }
  }

  @Test
  void appendsComeBackInOrderAfterAReopen() throws Exception {
    OpenLog first = new OpenLog().open();
    String[] payloads = IntStream.rangeClosed(1, 200).mapToObj(i -> "{\"n\":" + i + "}").toArray(String[]::new);

    List<Long> positions = first.append(payloads);
    first.close();
    OpenLog second = new OpenLog().open();

    assertThat(positions).containsExactlyElementsOf(IntStream.rangeClosed(1, 200).mapToObj(i -> (long) i).toList());
    assertThat(second.seen).hasSize(200).startsWith("1:{\"n\":1}").endsWith("200:{\"n\":200}");
    assertThat(second.append("{\"n\":201}")).containsExactly(201L);
  }

  @Test
  void aLongLogIsReplayedInOrder() throws Exception {
    OpenLog first = new OpenLog().open();
    for (int chunk = 0; chunk < 10; chunk++) {
      int from = chunk * 1000;
      first.append(IntStream.range(from, from + 1000).mapToObj(i -> "{\"n\":" + i + "}").toArray(String[]::new));
    }
    first.close();

    OpenLog second = new OpenLog().open();

    assertThat(second.seen).containsExactlyElementsOf(
        IntStream.range(0, 10_000).mapToObj(i -> (i + 1) + ":{\"n\":" + i + "}").toList());
  }

  @Test
  void theSinkHasAnAppendBeforeTheAppendCompletes() throws Exception {
    OpenLog log = new OpenLog().open();
    List<Integer> seenWhenCompleted = new ArrayList<>();

    await(onContextFuture(() -> log.log.append("k", "{}".getBytes(StandardCharsets.UTF_8))
        .onSuccess(position -> seenWhenCompleted.add(log.seen.size()))));

    assertThat(seenWhenCompleted).containsExactly(1);
  }

  @Test
  void eachRecordIsOneChecksummedLineWithItsKeyAfterAHeaderThatNamesTheFormat() throws Exception {
    OpenLog log = new OpenLog().open();
    log.append("{\"a\":1}", "{\"b\":2}");
    log.close();

    List<String> lines = Files.readAllLines(segment());

    assertThat(lines).hasSize(3);
    assertThat(lines.get(0)).matches("[0-9a-f]{8} 0 \\{\"format\":2}");
    assertThat(lines.get(1)).matches("[0-9a-f]{8} 1 \"k\" \\{\"a\":1}");
    assertThat(lines.get(2)).matches("[0-9a-f]{8} 2 \"k\" \\{\"b\":2}");
  }

  @Test
  void aLogOfTheFirstFormatIsReadAndGoesOnInANewSegmentOfTheCurrentOne() throws Exception {
    Files.createDirectories(dir);
    GrowableBuffer old = new GrowableBuffer();
    for (int i = 1; i <= 3; i++) {
      RecordLine.encode(i, null, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8), old);
    }
    Path oldSegment = LogFile.path(dir, LogFile.SEGMENT, 1);
    Files.write(oldSegment, withoutKeys(old));
    OpenLog first = new OpenLog().open();

    List<Long> appended = first.append("{\"n\":4}");
    first.close();
    OpenLog second = new OpenLog().open();

    assertThat(first.seen).startsWith("1:{\"n\":1}", "2:{\"n\":2}", "3:{\"n\":3}");
    assertThat(appended).containsExactly(4L);
    assertThat(LogFile.list(dir, LogFile.SEGMENT)).extracting(LogFile::position).containsExactly(1L, 4L);
    assertThat(Files.readAllLines(oldSegment)).as("left as it was written").hasSize(3);
    assertThat(second.seen).containsExactly("1:{\"n\":1}", "2:{\"n\":2}", "3:{\"n\":3}", "4:{\"n\":4}");
  }

  /** Lines of format 1: written before records had keys, the line of position 0 excepted. */
  private static byte[] withoutKeys(GrowableBuffer keyed) {
    String text = StandardCharsets.UTF_8.decode(keyed.asByteBuffer()).toString();
    StringBuilder lines = new StringBuilder();
    for (String line : text.split("\n")) {
      String[] parts = line.split(" ", 4);
      String unchecked = parts[1] + " " + parts[3];
      java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
      crc.update(unchecked.getBytes(StandardCharsets.UTF_8));
      lines.append(String.format("%08x %s%n", crc.getValue(), unchecked));
    }
    return lines.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aSegmentOrSnapshotOfANewerFormatIsRefusedRatherThanMisread() throws Exception {
    OpenLog first = new OpenLog().open();
    first.append("{\"n\":1}");
    first.close();
    GrowableBuffer newer = new GrowableBuffer();
    RecordLine.encode(0, null, "{\"format\":3}".getBytes(StandardCharsets.UTF_8), newer);
    RecordLine.encode(2, "k", "{\"n\":2,\"meaning\":\"changed\"}".getBytes(StandardCharsets.UTF_8), newer);
    Path newerSegment = LogFile.path(dir, LogFile.SEGMENT, 2);
    Files.write(newerSegment, StandardCharsets.UTF_8.decode(newer.asByteBuffer()).toString().getBytes(StandardCharsets.UTF_8));

    String segmentRefused = rootMessage(() -> new OpenLog().open());
    Files.move(newerSegment, LogFile.path(dir, LogFile.SNAPSHOT, 2));
    String snapshotRefused = rootMessage(() -> new OpenLog().open());

    assertThat(segmentRefused).startsWith("Event log file " + newerSegment)
        .contains("was written by a newer Ark Broker (record format 3); this version reads formats 1 to 2");
    assertThat(snapshotRefused).contains("snapshot-").contains("newer Ark Broker (record format 3)");
  }

  @Test
  void aTornLastRecordIsCutOffAndWritingGoesOn() throws Exception {
    OpenLog first = new OpenLog().open();
    first.append("{\"n\":1}", "{\"n\":2}", "{\"n\":3}");
    first.close();
    // The header and the first two records.
    long intact = Files.readAllLines(segment()).subList(0, 3).stream().mapToLong(l -> l.length() + 1).sum();
    truncate(segment(), Files.size(segment()) - 4);

    OpenLog second = new OpenLog().open();

    assertThat(second.seen).containsExactly("1:{\"n\":1}", "2:{\"n\":2}");
    assertThat(Files.size(segment())).isEqualTo(intact);
    assertThat(second.append("{\"n\":3 again}")).containsExactly(3L);
    second.close();
    assertThat(new OpenLog().open().seen).containsExactly("1:{\"n\":1}", "2:{\"n\":2}", "3:{\"n\":3 again}");
  }

  @Test
  void aDamagedLastRecordIsCutOff() throws Exception {
    OpenLog first = new OpenLog().open();
    first.append("{\"n\":1}", "{\"n\":2}");
    first.close();
    flipByteAt(segment(), Files.size(segment()) - 3);

    assertThat(new OpenLog().open().seen).containsExactly("1:{\"n\":1}");
  }

  @Test
  void damageBeforeIntactRecordsStopsTheStart() throws Exception {
    OpenLog first = new OpenLog().open();
    first.append("{\"n\":1}", "{\"n\":2}", "{\"n\":3}");
    first.close();
    flipByteAt(segment(), 15);

    assertThat(rootMessage(() -> new OpenLog().open())).contains("refusing to cut off acknowledged writes");
    assertThat(rootMessage(() -> new OpenLog().open())).as("a failed start leaves the directory unlocked")
        .contains("refusing to cut off acknowledged writes");
  }

  @Test
  void aSnapshotReplacesTheSegmentsItCovers() throws Exception {
    OpenLog first = new OpenLog().open();
    first.append("{\"q\":1,\"v\":1}", "{\"q\":2,\"v\":1}", "{\"q\":1,\"v\":2}");
    List<EventLog.LogRecord> latest = List.of(
        new EventLog.LogRecord(2, "2", "{\"q\":2,\"v\":1}".getBytes(StandardCharsets.UTF_8)),
        new EventLog.LogRecord(3, "1", "{\"q\":1,\"v\":2}".getBytes(StandardCharsets.UTF_8)));
    await(onContextFuture(() -> first.log.compact(3, latest, record -> record)));
    first.append("{\"q\":3,\"v\":1}");
    first.append("{\"q\":3,\"v\":2}");
    first.close();

    OpenLog second = new OpenLog().open();

    assertThat(second.seen).containsExactly("2:{\"q\":2,\"v\":1}", "3:{\"q\":1,\"v\":2}", "4:{\"q\":3,\"v\":1}",
        "5:{\"q\":3,\"v\":2}");
    assertThat(LogFile.list(dir, LogFile.SEGMENT)).extracting(LogFile::position).containsExactly(4L);
    assertThat(LogFile.list(dir, LogFile.SNAPSHOT)).extracting(LogFile::position).containsExactly(3L);
    assertThat(second.append("{\"q\":4}")).containsExactly(6L);
  }

  @Test
  void oneDataDirectoryServesOneBroker() throws Exception {
    new OpenLog().open();

    assertThat(rootMessage(() -> new OpenLog().open())).contains("in use by another broker process");
  }

  private Path segment() throws Exception {
    List<LogFile> segments = LogFile.list(dir, LogFile.SEGMENT);
    return segments.get(segments.size() - 1).path();
  }

  private static void truncate(Path file, long size) throws Exception {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.truncate(size);
    }
  }

  private static void flipByteAt(Path file, long offset) throws Exception {
    byte[] bytes = Files.readAllBytes(file);
    bytes[(int) offset] ^= 0x01;
    Files.write(file, bytes);
  }

  private static String rootMessage(Callable<?> action) {
    try {
      action.call();
      return "no failure";
    } catch (Exception e) {
      Throwable root = e;
      while (root.getCause() != null) {
        root = root.getCause();
      }
      return root.getMessage();
    }
  }

  private <T> T onContext(Callable<Future<T>> action) throws Exception {
    return await(onContextFuture(action));
  }

  private <T> Future<T> onContextFuture(Callable<Future<T>> action) {
    return OnContext.run(context, action);
  }

  private static <T> T await(Future<T> future) throws Exception {
    return OnContext.await(future);
  }

  @Test
  void aRecordThatCannotBeAppliedIsSkippedLiveAndInReplay() throws Exception {
    OpenLog first = new OpenLog().open();

    List<Long> positions = first.append("{\"n\":1}", "undecodable", "{\"unappliable\":2}", "{\"n\":3}");
    first.close();
    OpenLog second = new OpenLog().open();

    assertThat(positions).as("every append is acknowledged").containsExactly(1L, 2L, 3L, 4L);
    assertThat(first.seen).containsExactly("1:{\"n\":1}", "4:{\"n\":3}");
    assertThat(second.seen).as("replay skips them alike").containsExactly("1:{\"n\":1}", "4:{\"n\":3}");
    assertThat(second.append("{\"n\":5}")).containsExactly(5L);
  }
}
