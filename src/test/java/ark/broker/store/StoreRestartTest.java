package ark.broker.store;

import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The view after a restart is the view before it, whether it comes from a snapshot, segments or both. */
class StoreRestartTest {
  @TempDir
  Path dataDir;

  private static final JsonObject SNAPSHOT_OFTEN = new JsonObject()
      .put("store", new JsonObject().put("snapshotEveryEvents", 10));

  @Test
  void aRestartRestoresEveryQuestionFromSnapshotAndSegments() throws Exception {
    List<JsonObject> before = new ArrayList<>();
    String listVersion;
    try (TestBroker broker = TestBroker.start(dataDir, SNAPSHOT_OFTEN)) {
      for (int i = 0; i < 25; i++) {
        String id = broker.ask("{'recipient':'ark://users/john','content':'n" + i + "'}").getString("id");
        if (i % 3 == 0) {
          broker.patch("/questions/" + id, "{\"response\":\"yes\"}");
        } else if (i % 3 == 1) {
          broker.delete("/questions/" + id);
        }
      }
      JsonObject list = broker.get("/questions?limit=1000").json();
      listVersion = list.getString("resourceVersion");
      list.getJsonArray("items").forEach(item -> before.add((JsonObject) item));
    }
    assertThat(files("snapshot-")).isNotEmpty();
    assertThat(files("segment-")).as("segments covered by the snapshot are gone").hasSizeLessThan(5);

    try (TestBroker restarted = TestBroker.start(dataDir, SNAPSHOT_OFTEN)) {
      JsonObject list = restarted.get("/questions?limit=1000").json();
      List<JsonObject> after = new ArrayList<>();
      list.getJsonArray("items").forEach(item -> after.add((JsonObject) item));

      assertThat(after).containsExactlyElementsOf(before);
      assertThat(list.getString("resourceVersion")).isEqualTo(listVersion);
      JsonObject next = restarted.ask("{'recipient':'ark://users/john','content':'after restart'}");
      assertThat(Long.parseLong(next.getString("resourceVersion"))).isEqualTo(Long.parseLong(listVersion) + 1);
    }
  }

  @Test
  void aWatchResumesAcrossARestartFromAVersionAfterTheSnapshot() throws Exception {
    String lastSeen;
    try (TestBroker broker = TestBroker.start(dataDir, SNAPSHOT_OFTEN)) {
      for (int i = 0; i < 12; i++) {
        broker.ask("{'recipient':'ark://users/john','content':'n" + i + "'}");
      }
      lastSeen = broker.get("/questions").json().getString("resourceVersion");
    }

    try (TestBroker restarted = TestBroker.start(dataDir, SNAPSHOT_OFTEN);
         SseStream resumed = restarted.watch("", lastSeen);
         SseStream tooOld = restarted.watch("", "3")) {
      JsonObject created = restarted.ask("{'recipient':'ark://users/john','content':'after restart'}");

      assertThat(resumed.next().json()).isEqualTo(created);
      assertThat(tooOld.next().event()).isEqualTo("error");
    }
  }

  private List<Path> files(String prefix) throws Exception {
    try (Stream<Path> files = Files.list(dataDir.resolve("questions"))) {
      return files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
    }
  }
}
