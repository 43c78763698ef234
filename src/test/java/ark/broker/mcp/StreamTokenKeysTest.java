package ark.broker.mcp;

import ark.broker.ConfigLoader;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where the keys that sign MCP stream tokens come from: a broker on its own log keeps the key it made, so a stream
 * cut by a restart resumes after it; configured keys that cannot be used stop the start, never showing a key.
 */
class StreamTokenKeysTest {
  @TempDir
  Path dir;

  private static JsonObject mcp(JsonObject settings) {
    return ConfigLoader.bundledDefaults().getJsonObject("mcp").mergeIn(settings);
  }

  @Test
  void aStreamCutByARestartResumesAfterItWithTheKeyTheBrokerKept() throws Exception {
    Path data = dir.resolve("data");
    JsonObject call;
    String eventId;
    McpTestClient client;
    String id;
    try (TestBroker first = TestBroker.start(data)) {
      client = new McpTestClient(first.mcp).initialize();
      call = client.message("tools/call", new JsonObject().put("name", "ask_question")
          .put("arguments", new JsonObject().put("recipient", "ark://users/ann").put("content", "Still there?")));
      eventId = client.cutAfterFirstEvent(call);
      id = first.listAll("status=pending").get(0).getString("id");
    }
    Path key = data.resolve(StreamTokenKeySource.KEY_FILE);
    assertThat(Files.getPosixFilePermissions(key)).isEqualTo(PosixFilePermissions.fromString("rw-------"));

    try (TestBroker restarted = TestBroker.start(data)) {
      assertThat(restarted.patch("/questions/" + id, new JsonObject().put("response", "yes").encode()).status()).isEqualTo(200);
      McpTestClient again = new McpTestClient(restarted.mcp);
      again.sessionId = client.sessionId;
      try (SseStream resumed = again.get(eventId)) {
        assertThat(McpTestClient.answerTo(call, McpTestClient.nextResponse(resumed))).isEqualTo("yes");
      }
    }
  }

  @Test
  void keysThatCannotBeUsedStopTheStartWithoutShowingThem() throws Exception {
    String shortKey = "too-short-a-secret";
    assertThatThrownBy(() -> StreamTokenKeySource.from(mcp(new JsonObject().put("streamTokenKeys",
        new JsonArray().add("k".repeat(40)).add(shortKey))), dir))
        .hasMessageContaining("mcp.streamTokenKeys: key 2 of 2 has 18 characters; each needs at least 32")
        .hasMessageNotContaining(shortKey);
    Path file = Files.writeString(dir.resolve("keys"), "# rotated in March\n" + "k".repeat(40) + "\n\n");
    assertThatThrownBy(() -> StreamTokenKeySource.from(mcp(new JsonObject().put("streamTokenKeys", new JsonArray()
        .add("k".repeat(40))).put("streamTokenKeysFile", file.toString())), dir)).hasMessageContaining("not both");
    assertThatThrownBy(() -> StreamTokenKeySource.from(mcp(new JsonObject()
        .put("streamTokenKeysFile", dir.resolve("missing").toString())), dir))
        .hasMessageContaining("mcp.streamTokenKeysFile: ").hasMessageContaining("cannot be read");

    assertThat(StreamTokenKeySource.from(mcp(new JsonObject().put("streamTokenKeysFile", file.toString())), dir)).isNotNull();
    assertThat(dir.resolve(StreamTokenKeySource.KEY_FILE)).as("configured keys: none of its own").doesNotExist();
  }
}
