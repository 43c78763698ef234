package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Eventually;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A broker warming up its request path at start-up has its ports open: liveness probes get 200, /readyz and every
 * request a 503 that says it warms and when to come back (never a hang or a refused connection), and once warm it
 * serves, with nothing of the warm-up in its data or its log.
 */
class WarmingUpIT {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final String INITIALIZE = new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
      .put("params", new JsonObject().put("protocolVersion", "2025-11-25").put("capabilities", new JsonObject())
          .put("clientInfo", new JsonObject().put("name", "warming-test").put("version", "1")))
      .encode();
  private static final String QUESTION = new JsonObject().put("recipient", "ark://users/john.doe")
      .put("content", "Proceed?").encode();

  @TempDir
  Path dir;

  @Test
  void whileItWarmsUpProbesAndRequestsGetAClearAnswerThenItServes() throws Exception {
    // Long enough for the requests below to come while it warms, whatever else the machine runs.
    try (BrokerProcess broker = BrokerProcess.launch(dir, BrokerProcess.freePort(), Map.of("WARM_UP_SECONDS", "10"))) {
      Eventually.until("the REST port open, /livez 200", () -> statusOf(broker.base.resolve("/livez")), status -> status == 200);

      HttpResponse<String> notReady = send(HttpRequest.newBuilder(broker.base.resolve("/readyz")).GET());
      HttpResponse<String> create = send(HttpRequest.newBuilder(broker.base.resolve("/questions"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(QUESTION)));
      HttpResponse<String> initialize = send(mcpInitialize(broker));

      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(message(notReady)).startsWith("not ready: warming up");
      for (HttpResponse<String> refused : List.of(notReady, create, initialize)) {
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/json");
      }
      assertThat(message(create)).startsWith("warming up: ").contains("retry in 1 s");
      assertThat(new JsonObject(initialize.body()).getString("jsonrpc")).isEqualTo("2.0");
      assertThat(message(initialize)).contains("warming up: ");

      Eventually.until("/readyz 200 once warm", () -> statusOf(broker.base.resolve("/readyz")), status -> status == 200);

      assertThat(send(HttpRequest.newBuilder(broker.base.resolve("/questions"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(QUESTION))).statusCode())
          .isEqualTo(201);
      assertThat(new JsonObject(send(HttpRequest.newBuilder(broker.base.resolve("/questions")).GET()).body())
          .getJsonArray("items")).as("the questions: the one created once warm, none of the warm-up's").hasSize(1);
      assertThat(send(mcpInitialize(broker)).statusCode()).isEqualTo(200);
      String log = broker.output();
      assertThat(log.lines().filter(line -> line.contains("Ark Broker started"))).as(log).hasSize(1);
      assertThat(log.lines().filter(line -> line.contains("Store ready"))).as(log).hasSize(1);
      assertThat(log).contains("Warmed up the request path").contains("Ark Broker ready");
    }
  }

  private static HttpRequest.Builder mcpInitialize(BrokerProcess broker) {
    return HttpRequest.newBuilder(broker.mcp).header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream").POST(HttpRequest.BodyPublishers.ofString(INITIALIZE));
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return HTTP.send(request.timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The status of a GET, or -1 while nothing listens on the port yet. */
  private static int statusOf(URI uri) throws Exception {
    try {
      return send(HttpRequest.newBuilder(uri).GET()).statusCode();
    } catch (IOException notListeningYet) {
      return -1;
    }
  }

  private static String message(HttpResponse<String> response) {
    return new JsonObject(response.body()).getJsonObject("error").getString("message");
  }
}
