package ark.broker;

import ark.broker.testing.CapturedLog;
import ark.broker.testing.TestBroker;
import ch.qos.logback.classic.Level;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Upgrades: deletions that the release before this fix skipped are applied when its logs are read. The fixtures in
 * {@code fixtures/skipped-deletions} are the events and memory logs, byte for byte, of that release (commit bb11351)
 * after, on a fresh broker, 70 times {@code POST /events} then {@code DELETE /events/uid-$i}, and 70 times
 * {@code POST /messages} (conversations c-0 to c-9) then {@code DELETE /queries/query-$i/messages}: from the 65th on,
 * each deletion answered 503 and was skipped, leaving totals of 1 without items and six conversations without
 * messages.
 */
class SkippedDeletionsTest {
  @TempDir
  Path dataDir;

  @Test
  void deletionsSkippedBeforeAreAppliedWhenTheLogsAreRead() throws Exception {
    for (String log : new String[] {"events", "memory"}) {
      Path to = dataDir.resolve(log);
      Files.createDirectories(to);
      try (InputStream in = SkippedDeletionsTest.class.getResourceAsStream(
          "/fixtures/skipped-deletions/" + log + "/segment-00000000000000000001.log")) {
        Files.copy(in, to.resolve("segment-00000000000000000001.log"));
      }
    }
    try (CapturedLog log = CapturedLog.all(); TestBroker broker = TestBroker.start(dataDir)) {
      assertThat(broker.get("/events/uid-66").json().getInteger("total")).isZero();
      assertThat(broker.get("/events").json().getInteger("total")).isZero();
      assertThat(broker.get("/messages?conversation_id=c-6").json().getInteger("total")).isZero();
      JsonObject status = broker.get("/memory-status").json();
      assertThat(status.getInteger("total_conversations")).as(status.encode()).isZero();
      assertThat(broker.get("/conversations").json().getJsonArray("conversations")).isEmpty();

      assertThat(broker.delete("/events").status()).as("a purge after them").isEqualTo(200);
      assertThat(broker.delete("/messages").status()).isEqualTo(200);
      assertThat(log.events()).noneMatch(event -> event.getLevel() == Level.ERROR);
    }
  }
}
