package ark.broker.store;

import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A whole broker whose data directory fills up: a 2 MiB tmpfs this test mounts, so it runs as root on
 * Linux and is skipped elsewhere (the same failures are injected through the log's channel seam in
 * {@code FileEventLogDiskFullTest}, which runs everywhere). Writes are refused with 503 and a clear
 * message, the broker is not ready while the disk is full, it recovers by itself when space returns,
 * and after a restart every acknowledged write is there and no refused one is.
 */
class DiskFullTest {
  @TempDir
  Path tmp;
  private Path mount;

  @BeforeEach
  void mountSmallTmpfs() throws Exception {
    Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"),
        "skipped: the disk-full test mounts a tmpfs, which needs Linux");
    mount = Files.createDirectory(tmp.resolve("small-disk"));
    Process mounting = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mount.toString())
        .redirectErrorStream(true).start();
    String output = new String(mounting.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    boolean mounted = mounting.waitFor(30, TimeUnit.SECONDS) && mounting.exitValue() == 0;
    if (!mounted) {
      mount = null;
    }
    Assumptions.assumeTrue(mounted, () -> "skipped: could not mount a 2 MiB tmpfs (the test must run as root on "
        + "Linux; FileEventLogDiskFullTest covers the same path through injected faults): " + output.strip());
  }

  @AfterEach
  void unmount() throws Exception {
    if (mount != null) {
      new ProcessBuilder("umount", mount.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aFullDiskRefusesWritesAndMakesTheBrokerUnreadyUntilSpaceReturns() throws Exception {
    Path dataDir = mount.resolve("data");
    Path filler = mount.resolve("filler");
    List<String> acknowledged = new ArrayList<>();
    String refusedKey;
    try (TestBroker broker = TestBroker.start(dataDir)) {
      acknowledged.add(create(broker, "before").body());
      fill(filler);

      // The last page of the log's file may still have room for a record or two.
      TestBroker.Response refused = null;
      int attempt = 0;
      while (refused == null && attempt < 50) {
        TestBroker.Response response = create(broker, "full-" + attempt);
        if (response.status() == 201) {
          acknowledged.add(response.body());
        } else {
          refused = response;
        }
        attempt++;
      }
      assertThat(refused).as("a write on a full disk is refused").isNotNull();
      refusedKey = "full-" + (attempt - 1);
      assertThat(refused.status()).isEqualTo(503);
      assertThat(refused.error().getString("message")).contains("No space left on device").contains("not stored");

      TestBroker.Response again = create(broker, "while-full");
      assertThat(again.status()).as("refused at once while the disk is full").isEqualTo(503);
      assertThat(again.error().getString("message")).contains("No space left on device");
      TestBroker.Response ready = broker.get("/readyz");
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.error().getString("message")).contains("not ready").contains("questions event log")
          .contains("No space left on device");

      Files.delete(filler);
      Eventually.until("the broker is ready again", () -> broker.get("/readyz").status(), status -> status == 200);
      TestBroker.Response after = create(broker, "after");
      assertThat(after.status()).isEqualTo(201);
      acknowledged.add(after.body());
    }

    try (TestBroker restarted = TestBroker.start(dataDir)) {
      for (String body : acknowledged) {
        JsonObject question = new JsonObject(body);
        TestBroker.Response found = restarted.get("/questions/" + question.getString("id"));
        assertThat(found.status()).as("acknowledged %s is there after a restart", question.getString("content"))
            .isEqualTo(200);
      }
      assertThat(restarted.listAll("").stream().map(q -> q.getString("content")))
          .as("the refused writes are not").doesNotContain(refusedKey, "while-full");
      assertThat(create(restarted, refusedKey).status()).as("retrying with the same idempotency key creates it")
          .isEqualTo(201);
    }
  }

  @Test
  void aSessionLogThatCannotWriteMakesTheBrokerUnreadyToo() throws Exception {
    Path filler = mount.resolve("filler");
    try (TestBroker broker = TestBroker.start(mount.resolve("data"))) {
      fill(filler);

      // New MCP sessions are saved to the session log; the last page of its file may still have room for a few.
      McpTestClient.Reply refused = null;
      for (int attempt = 0; refused == null && attempt < 200; attempt++) {
        McpTestClient.Reply reply = new McpTestClient(broker.mcp).send(initialize());
        if (reply.status() != 200) {
          refused = reply;
        }
      }
      assertThat(refused).as("a new session on a full disk is refused").isNotNull();
      TestBroker.Response ready = broker.get("/readyz");
      assertThat(ready.status()).isEqualTo(503);
      assertThat(ready.error().getString("message")).contains("sessions event log").contains("No space left on device");

      Files.delete(filler);
      Eventually.until("the broker is ready again", () -> broker.get("/readyz").status(), status -> status == 200);
      assertThat(new McpTestClient(broker.mcp).initialize().sessionId).isNotNull();
    }
  }

  private static JsonObject initialize() {
    return new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize").put("params",
        new JsonObject().put("protocolVersion", "2025-11-25").put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", "disk-full-test").put("version", "1.0")));
  }

  private static TestBroker.Response create(TestBroker broker, String key) throws Exception {
    return broker.post("/questions", new JsonObject().put("recipient", "ark://users/john").put("content", key)
        .put("context", "x".repeat(1000)).put("idempotencyKey", key).encode());
  }

  /** Writes into {@code filler} until the disk is full. */
  private static void fill(Path filler) {
    byte[] chunk = new byte[4096];
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (true) {
        out.write(chunk);
      }
    } catch (IOException full) {
      assertThat(full.getMessage()).contains("No space left on device");
    }
  }
}
