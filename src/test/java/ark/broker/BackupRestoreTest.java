package ark.broker;

import ark.broker.log.LogBackup;
import ark.broker.testing.Eventually;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;

import static ark.broker.testing.TestBroker.someone;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A backup taken while clients write restores, in a fresh data directory, to exactly the writes acknowledged up to
 * its backup point: none lost, none from after it.
 */
class BackupRestoreTest {
  @TempDir
  Path dir;

  /** Snapshots (which delete segments) happen while the backup copies. */
  private static final JsonObject SNAPSHOT_OFTEN = new JsonObject()
      .put("store", new JsonObject().put("snapshotEveryEvents", 100));
  private static final int WRITERS = 4;

  /** A write the broker acknowledged: the question's state from then on, until a later write. */
  private record Acked(String id, boolean answered, long resourceVersion) {
  }

  @Test
  void aBackupUnderWriteLoadRestoresExactlyTheAcknowledgedWritesUpToItsPoint() throws Exception {
    Path dataDir = dir.resolve("data");
    Path backup = dir.resolve("backup");
    ConcurrentLinkedQueue<Acked> acked = new ConcurrentLinkedQueue<>();
    long point;
    try (TestBroker broker = TestBroker.start(dataDir, SNAPSHOT_OFTEN)) {
      AtomicBoolean writing = new AtomicBoolean(true);
      ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < WRITERS; i++) {
        running.add(writers.submit(() -> {
          while (writing.get()) {
            JsonObject created = broker.ask("{'recipient':'" + someone() + "','content':'Backed up?'}");
            String id = created.getString("id");
            acked.add(new Acked(id, false, version(created)));
            TestBroker.Response answered = broker.patch("/questions/" + id, "{\"response\":\"yes\"}");
            assertThat(answered.status()).isEqualTo(200);
            acked.add(new Acked(id, true, version(answered.json())));
          }
          return null;
        }));
      }
      Eventually.until("writes are under way", acked::size, size -> size >= 300);
      point = LogBackup.backup(dataDir, backup).get("questions");
      int atBackup = acked.size();
      Eventually.until("writes go on after the backup", acked::size, size -> size >= atBackup + 300);
      writing.set(false);
      for (Future<?> writer : running) {
        writer.get();
      }
      writers.shutdown();
    }

    Map<String, Acked> expected = new HashMap<>();
    for (Acked write : acked) {
      if (write.resourceVersion() <= point) {
        expected.merge(write.id(), write, (a, b) -> a.resourceVersion() > b.resourceVersion() ? a : b);
      }
    }
    assertThat(expected.size()).as("the backup point lies within the writes").isBetween(1, acked.size() / 2 - 1);
    Path restored = dir.resolve("restored");
    copyTree(backup, restored);
    try (TestBroker broker = TestBroker.start(restored, SNAPSHOT_OFTEN)) {
      Map<String, Acked> found = new HashMap<>();
      for (JsonObject question : broker.listAll("")) {
        found.put(question.getString("id"), new Acked(question.getString("id"),
            "answered".equals(question.getString("status")), version(question)));
      }
      assertThat(found).isEqualTo(expected);
    }
  }

  @Test
  void aBackupNeverOverwritesADirectory() throws Exception {
    Path dataDir = dir.resolve("data");
    Files.createDirectories(dataDir.resolve("questions"));
    Path existing = Files.createDirectories(dir.resolve("existing"));
    assertThatThrownBy(() -> LogBackup.backup(dataDir, existing)).hasMessageContaining("exists already");
  }

  @Test
  void theBackupCommandRefusesATargetOrPartialCopyThatExistsOrIsALinkAndWritesNothingThroughIt() throws Exception {
    Path dataDir = dir.resolve("data");
    try (TestBroker broker = TestBroker.start(dataDir)) {
      broker.ask("{'recipient':'" + someone() + "','content':'Backed up?'}");
    }
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Path target = dir.resolve("backup");
    Path partial = dir.resolve("backup.partial");
    for (Path planted : List.of(partial, target)) {
      for (Path pointingTo : List.of(elsewhere, dir.resolve("nowhere"))) {
        Files.createSymbolicLink(planted, pointingTo);
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = BackupCommand.run(new String[] {"backup", target.toString()}, Map.of("STORE_DATA_DIR",
            dataDir.toString()), new PrintStream(new ByteArrayOutputStream(), true, UTF_8), new PrintStream(err, true, UTF_8));

        String said = err.toString(UTF_8);
        assertThat(status).as("%s -> %s: %s", planted, pointingTo, said).isEqualTo(2);
        assertThat(said).contains(planted.toString(), "exists already").doesNotContain("Exception");
        try (var written = Files.list(elsewhere)) {
          assertThat(written.toList()).as("written through the link").isEmpty();
        }
        assertThat(dir.resolve("nowhere")).doesNotExist();
        assertThat(Files.isSymbolicLink(planted)).as("the link is left as it was").isTrue();
        assertThat(Files.exists(planted == target ? partial : target, LinkOption.NOFOLLOW_LINKS)).isFalse();
        Files.delete(planted);
      }
    }
    Files.createDirectories(partial);
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertThat(BackupCommand.run(new String[] {"backup", target.toString()}, Map.of("STORE_DATA_DIR", dataDir.toString()),
        new PrintStream(new ByteArrayOutputStream(), true, UTF_8), new PrintStream(err, true, UTF_8))).isEqualTo(2);
    assertThat(err.toString(UTF_8)).contains(partial + " (left by a backup that did not finish) exists already");
  }

  private static long version(JsonObject question) {
    return Long.parseLong(question.getValue("resourceVersion").toString());
  }

  private static void copyTree(Path from, Path to) throws Exception {
    try (var paths = Files.walk(from)) {
      for (Path path : paths.toList()) {
        Files.copy(path, to.resolve(from.relativize(path).toString()));
      }
    }
  }
}
