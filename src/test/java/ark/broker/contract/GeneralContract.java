package ark.broker.contract;

import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import static ark.broker.contract.Checks.assertError;
import static org.assertj.core.api.Assertions.assertThat;

/** What every route shares: probes, the error envelope, X-Request-ID, the SSE conventions of every watch. */
public interface GeneralContract extends ContractCheck {

  @Test
  default void healthAndReadinessProbesAnswer200() throws Exception {
    // The chart's startup and liveness probes use /health, readiness /readyz; upstream's bodies are "OK" (text/html).
    for (String probe : new String[] {"/health", "/readyz"}) {
      assertThat(ark().get(probe).status()).as(probe).isEqualTo(200);
    }
  }

  @Test
  default void anUnknownPathIs404WithTheErrorEnvelope() throws Exception {
    // Upstream: {"error":{"code":"NOT_FOUND","message":"Not found","requestId"}}; callers read the status only (the
    // controller's finalizer takes 404 for "not supported"), and the broker's other routes have their own codes.
    Response response = ark().send(ark().request("/no-such-route").header("X-Request-ID", "req-fixed").GET());
    assertThat(response.status()).isEqualTo(404);
    assertThat(response.json().getJsonObject("error").getString("message")).isNotBlank();
    assertThat(response.json().getJsonObject("error").getString("requestId")).isEqualTo("req-fixed");
  }

  @Test
  default void anUnservedMethodOnAKnownPathIsRefusedWithTheEnvelope() throws Exception {
    // Upstream answers 404 NOT_FOUND; 405 says the same to every caller (the controller treats both as unsupported).
    Response response = ark().send(ark().request("/messages").PUT(java.net.http.HttpRequest.BodyPublishers.noBody()));
    assertThat(response.status()).isIn(404, 405);
    assertThat(response.json().getJsonObject("error").getString("requestId")).isEqualTo(response.header("X-Request-ID"));
  }

  @Test
  default void everyAnswerEchoesTheRequestIdOrMakesOne() throws Exception {
    Response echoed = ark().send(ark().request("/conversations").header("X-Request-ID", "trace-me-42")
        .POST(java.net.http.HttpRequest.BodyPublishers.noBody()));
    assertThat(echoed.header("X-Request-ID")).isEqualTo("trace-me-42");
    Response made = ark().get("/conversations");
    assertThat(made.header("X-Request-ID")).isNotBlank(); // upstream: a UUIDv4
  }

  @Test
  default void aValidationErrorNamesEachBadField() throws Exception {
    String message = assertError(ark().postJson("/messages", "{\"query_id\":\"q-1\"}"), 400, "VALIDATION_ERROR");
    assertThat(message).contains("conversation_id").contains("messages");
  }

  @Test
  default void aBodyThatIsNotJsonIsAValidationError() throws Exception {
    Response response = ark().post("/messages", "text/plain", "hello".getBytes(StandardCharsets.UTF_8));
    assertError(response, 400, "VALIDATION_ERROR");
  }

  @BeyondUpstream("500 text/html without X-Request-ID (its error handler fails before the logger is attached)")
  default void malformedJsonIs400WithTheEnvelope() throws Exception {
    Response response = ark().postJson("/messages", "{bad json");
    assertThat(response.status()).isEqualTo(400);
    assertThat(response.json().getJsonObject("error").getString("requestId")).isEqualTo(response.header("X-Request-ID"));
  }

  @BeyondUpstream("500 text/html (body-parser's 413 is lost in the same broken error handler)")
  default void anOversizedBodyIs413WithTheEnvelope() throws Exception {
    long size = broker().oversizedBodyBytes();
    try (RawExchange post = RawExchange.sizedPost(ark().base(), "/messages", "application/json", size)) {
      byte[] start = "{\"conversation_id\":\"c\",\"query_id\":\"q\",\"messages\":[\"".getBytes(StandardCharsets.UTF_8);
      byte[] block = new byte[64 * 1024];
      Arrays.fill(block, (byte) 'x');
      // Written beside the reading: a server that answers early may stop reading, and a blocked write must not hide it.
      Thread writer = new Thread(() -> {
        post.bytesQuietly(start);
        for (long left = size - start.length; left > 0; left -= block.length) {
          post.bytesQuietly(left >= block.length ? block : Arrays.copyOf(block, (int) left));
        }
      }, "contract-oversized-body");
      writer.setDaemon(true);
      writer.start();
      RawExchange.Answer answer = post.answer(Duration.ofSeconds(15));
      assertThat(answer.status()).as("answer to a %d-byte body: %s", size, answer).isEqualTo(413);
      assertThat(answer.json().getJsonObject("error").getString("requestId")).isEqualTo(answer.header("X-Request-ID"));
    }
  }

  @Test
  default void anIdleWatchSendsHeartbeatComments() throws Exception {
    try (EventStreamLines watch = ark().watch("/messages?watch=true&conversation_id=" + Checks.unique("idle"))) {
      assertThat(watch.commentWithin("heartbeat", broker().heartbeatWithin()))
          .as("': heartbeat' within %s; lines: %s", broker().heartbeatWithin(), watch.taken()).isTrue();
    }
  }

  @Test
  default void everyWatchStartsWithConnectedAsAnEventStream() throws Exception {
    for (String path : new String[] {"/messages?watch=true", "/stream?watch=true", "/events?watch=true",
        "/events/" + Checks.unique("uid") + "?watch=true", "/traces?watch=true",
        "/traces/" + Checks.unique("trace") + "?watch=true", "/sessions?watch=true&session_id=" + Checks.unique("s")}) {
      try (EventStreamLines watch = ark().watch(path)) {
        assertThat(watch.status()).as(path).isEqualTo(200);
        assertThat(watch.header("Content-Type")).as(path).startsWith("text/event-stream");
        assertThat(watch.header("Cache-Control")).as(path).isEqualTo("no-cache");
        assertThat(watch.nextLine(Duration.ofSeconds(5))).as(path).isEqualTo(": connected");
        assertThat(watch.nextLine(Duration.ofSeconds(5))).as(path).isEmpty();
      }
    }
  }

  @Test
  default void aBadWatchParameterIsAValidationError() throws Exception {
    for (String path : new String[] {"/messages?watch=yes", "/events?watch=1", "/traces?from-beginning=yes",
        "/events?cursor=-1", "/messages?cursor=abc"}) {
      assertError(ark().get(path), 400, "VALIDATION_ERROR");
    }
  }

  @BeyondUpstream("/openapi.json is partial (built from JSDoc): no GET /messages, /memory-status, events, sessions,"
      + " traces nor /v1/traces")
  default void theOpenApiDocumentDescribesEveryArkRoute() throws Exception {
    Response response = ark().get("/openapi.json");
    assertThat(response.status()).isEqualTo(200);
    JsonObject document = response.json();
    assertThat(document.getString("openapi")).startsWith("3.");
    java.util.Set<String> described = new java.util.TreeSet<>();
    document.getJsonObject("paths").forEach(path -> ((JsonObject) path.getValue()).fieldNames().forEach(method ->
        described.add(method.toUpperCase(java.util.Locale.ROOT) + " " + path.getKey().replaceAll("\\{[^}]*}", "{}"))));
    assertThat(described).contains("GET /health", "GET /readyz",
        "POST /messages", "GET /messages", "DELETE /messages", "GET /memory-status",
        "GET /conversations", "POST /conversations", "DELETE /conversations", "GET /conversations/{}",
        "DELETE /conversations/{}", "DELETE /conversations/{}/queries/{}/messages", "DELETE /queries/{}/messages",
        "GET /stream", "DELETE /stream", "GET /stream/{}", "POST /stream/{}", "POST /stream/{}/complete",
        "POST /events", "GET /events", "DELETE /events", "GET /events/{}", "DELETE /events/{}",
        "GET /sessions", "POST /sessions", "DELETE /sessions", "GET /sessions/{}",
        "GET /traces", "DELETE /traces", "GET /traces/{}", "POST /v1/traces");
  }

  @BeyondUpstream("no /metrics in 0.1.67 (prom-client came later)")
  default void metricsAreServedInThePrometheusTextFormat() throws Exception {
    Response response = ark().get("/metrics");
    assertThat(response.status()).isEqualTo(200);
    assertThat(response.header("Content-Type")).containsAnyOf("text/plain", "application/openmetrics-text");
    assertThat(response.body()).contains("# TYPE ");
  }
}
