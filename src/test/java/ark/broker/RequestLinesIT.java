package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Eventually;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The log at thousands of requests a second stays the operator's: a broker as shipped writes no line per question
 * created or answered, however many there are, and keeps the lines an operator acts on; {@code LOG_REQUESTS=true}
 * brings a line per create and per answer back.
 */
class RequestLinesIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /** Pairs sent at once: the broker serves them concurrently, as under load. */
  private static final int CONCURRENT = 16;

  @TempDir
  Path dir;

  @Test
  void asShippedABrokerUnderLoadWritesNoLinePerRequest() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir, BrokerProcess.freePort(), Map.of())) {
      List<String> ids = createAndAnswer(broker, 20 * CONCURRENT);

      List<String> lines = loggedUpToAnMcpSession(broker);

      assertThat(lines).as("lines naming a question created or answered").noneMatch(line -> line.contains("Question q-"));
      assertThat(String.join("\n", lines)).doesNotContain(ids.get(0)).doesNotContain(ids.get(ids.size() - 1))
          .contains("Store ready").contains("Ark Broker started");
    }
  }

  @Test
  void logRequestsBringsBackALinePerCreateAndPerAnswer() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir, BrokerProcess.freePort(), Map.of("LOG_REQUESTS", "true"))) {
      List<String> ids = createAndAnswer(broker, CONCURRENT);

      List<String> lines = loggedUpToAnMcpSession(broker);

      for (String id : ids) {
        assertThat(lines).as("the lines of %s", id)
            .anyMatch(line -> line.contains(" INFO  requests - Question " + id + " created for ark://users/john.doe"))
            .anyMatch(line -> line.contains(" INFO  requests - Question " + id + " answered"));
      }
    }
  }

  /** {@code pairs} questions created and answered, {@link #CONCURRENT} at a time; their ids. */
  private static List<String> createAndAnswer(BrokerProcess broker, int pairs) {
    List<String> ids = new ArrayList<>();
    for (int round = 0; round < pairs / CONCURRENT; round++) {
      List<CompletableFuture<String>> answered = new ArrayList<>();
      for (int i = 0; i < CONCURRENT; i++) {
        answered.add(send(broker.base.resolve("/questions"), "POST", new JsonObject()
            .put("recipient", "ark://users/john.doe").put("sender", "ark://agents/load").put("content", "Proceed?"))
            .thenCompose(created -> send(broker.base.resolve("/questions/" + created.getString("id")), "PATCH",
                new JsonObject().put("response", "yes")))
            .thenApply(question -> question.getString("id")));
      }
      answered.forEach(id -> ids.add(id.join()));
    }
    return ids;
  }

  private static CompletableFuture<JsonObject> send(URI uri, String method, JsonObject body) {
    return HTTP.sendAsync(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofString(body.encode())).build(), HttpResponse.BodyHandlers.ofString())
        .thenApply(response -> {
          assertThat(response.statusCode()).as("%s %s: %s", method, uri, response.body()).isBetween(200, 201);
          return new JsonObject(response.body());
        });
  }

  /**
   * The broker's log so far, once a session started over MCP after every request has its line: lines leave in the
   * order they were logged, so any line of the requests before it is written by then.
   */
  private static List<String> loggedUpToAnMcpSession(BrokerProcess broker) throws Exception {
    String client = "marker-" + System.nanoTime();
    String initialize = new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
        .put("params", new JsonObject().put("protocolVersion", "2025-11-25").put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", client).put("version", "1")))
        .encode();
    HttpResponse<String> started = HTTP.send(HttpRequest.newBuilder(broker.mcp).header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(initialize))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(started.statusCode()).as(started.body()).isEqualTo(200);
    Eventually.until("the line of the MCP session of " + client, broker::output, output -> output.contains(client));
    return broker.output().lines().toList();
  }
}
