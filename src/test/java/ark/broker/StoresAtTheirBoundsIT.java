package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Eventually;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ark's stores filled to their default bounds with items of about 1 MiB, at the heap the Kubernetes manifests give a
 * broker (three quarters of 1 GiB): every list is served, whole, and the broker starts again on the same data with
 * the same heap. Once the pages were an OutOfMemoryError, and so was every later start.
 */
class StoresAtTheirBoundsIT {
  private static final String MANIFESTS_HEAP = "768m";
  private static final int ITEM_CHARS = 1_000_000;
  /** Items beyond a store's bound, so it has dropped its oldest when it is read. */
  private static final int BEYOND = 3;
  private static final int READERS = 4;
  private static final JsonObject DEFAULTS = ConfigLoader.bundledDefaults();
  private static final List<String> PAGES = List.of("/sessions", "/sessions?limit=100", "/messages", "/events",
      "/traces", "/stream?limit=1000");

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @TempDir
  Path dataDir;

  @Test
  void storesFilledToTheirDefaultBoundsAreServedAndTheBrokerStartsAgainOnThem() throws Exception {
    Map<String, String> environment = Map.of("MCP_PORT", Integer.toString(BrokerProcess.freePort()),
        // The heap it takes does not depend on the disk: without syncs the test writes in seconds.
        "STORE_FSYNC", "false",
        // What the JVM picks in the manifests' container (2 CPUs, 1 GiB): its old generation is two thirds of the heap.
        "JAVA_TOOL_OPTIONS", "-XX:+UseSerialGC");
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, port, environment, MANIFESTS_HEAP)) {
      broker.awaitReady(Duration.ofSeconds(60));
      fill(broker.base);
      allServed(broker);
      broker.terminate();
      assertThat(broker.awaitExit(Duration.ofSeconds(60))).as(broker.output()).isZero();
    }
    try (BrokerProcess restarted = BrokerProcess.launch(dataDir, port, environment, MANIFESTS_HEAP)) {
      restarted.awaitReady(Duration.ofMinutes(2));
      allServed(restarted);
    }
  }

  @Test
  void aBrokerWhoseBoundsCannotFitItsHeapRefusesToStartSayingBoth() throws Exception {
    try (BrokerProcess broker = BrokerProcess.launch(dataDir, BrokerProcess.freePort(), Map.of(), "256m")) {
      assertThat(broker.awaitExit(Duration.ofSeconds(60))).isNotZero();
      assertThat(broker.output()).containsPattern("need a heap of \\d+ MiB .*more than the \\d+ MiB this JVM may use");
    }
  }

  private void fill(URI base) throws Exception {
    String text = "x".repeat(ITEM_CHARS);
    for (int i = 0; i < items("memory"); i++) {
      post(base, "/messages", new JsonObject().put("conversation_id", "c-" + i).put("query_id", "q-" + i)
          .put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", text))));
    }
    for (int i = 0; i < items("events"); i++) {
      post(base, "/events", new JsonObject().put("reason", "Note").put("message", text)
          .put("data", new JsonObject().put("queryId", "q-" + i)));
    }
    // Errors of characters beyond Latin-1: two bytes a character on the heap, three in the sessions' rendering.
    String euros = "\u20ac".repeat(ITEM_CHARS / 3);
    for (int i = 0; i < 3 * items("querySessions"); i++) {
      post(base, "/sessions", new JsonObject().put("sessionId", "s-" + i).put("queryName", "q-" + i)
          .put("_reason", "ToolCallError").put("error", euros));
    }
    for (int i = 0; i < items("traces"); i++) {
      post(base, "/v1/traces", new JsonObject().put("resourceSpans", new JsonArray().add(new JsonObject()
          .put("scopeSpans", new JsonArray().add(new JsonObject().put("spans", new JsonArray().add(new JsonObject()
              .put("traceId", "t-" + i).put("spanId", "s").put("name", "span").put("attributes", new JsonArray()
                  .add(new JsonObject().put("key", "text").put("value", new JsonObject().put("stringValue", text)))))))))));
    }
    String line = new JsonObject().put("text", "x".repeat(DEFAULTS.getJsonObject("arkApi").getInteger("maxStreamLineBytes")
        - 100)).encode() + "\n";
    for (int i = 0; i < items("streams"); i++) {
      send(base, "/stream/q-" + i, "application/x-ndjson", line);
    }
  }

  /** As many items of about 1 MiB as the store's default bound holds, and a few more. */
  private static long items(String store) {
    return DEFAULTS.getJsonObject(store).getLong("maxBytes") / ITEM_CHARS + BEYOND;
  }

  private void post(URI base, String path, JsonObject body) throws Exception {
    send(base, path, "application/json", body.encode());
  }

  private void send(URI base, String path, String type, String body) throws Exception {
    HttpResponse<String> answer = http.send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", type)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as("POST %s: %s", path, answer.body()).isBetween(200, 204);
  }

  private void allServed(BrokerProcess broker) throws Exception {
    for (String page : PAGES) {
      // A store still replaying its log answers 503 until it has.
      Eventually.until("GET " + page + " served", () -> get(broker, page), served -> served.statusCode() != 503);
      // The largest responses, asked by several readers at once, as a dashboard's users do.
      List<CompletableFuture<HttpResponse<byte[]>>> readers = IntStream.range(0, READERS).mapToObj(reader -> http
          .sendAsync(HttpRequest.newBuilder(broker.base.resolve(page)).build(), HttpResponse.BodyHandlers.ofByteArray()))
          .toList();
      for (CompletableFuture<HttpResponse<byte[]>> reader : readers) {
        HttpResponse<byte[]> answer = reader.get();
        assertThat(answer.statusCode()).as("GET %s", page).isEqualTo(200);
        assertThat(answer.body().length).as("GET %s", page).isGreaterThan(ITEM_CHARS);
      }
    }
    assertThat(broker.isAlive()).as(broker.output()).isTrue();
  }

  private HttpResponse<byte[]> get(BrokerProcess broker, String page) throws Exception {
    return http.send(HttpRequest.newBuilder(broker.base.resolve(page)).build(), HttpResponse.BodyHandlers.ofByteArray());
  }
}
