package ark.broker.testing;

import ark.broker.testing.SseStream.SseEvent;
import io.vertx.core.json.JsonObject;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain MCP client over HTTP for the tests: every byte of the Streamable HTTP exchange is visible,
 * so headers, statuses, priming events and event ids can be asserted.
 */
public final class McpTestClient {
  public final URI endpoint;
  public final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
  private final AtomicLong ids = new AtomicLong();
  public String sessionId;
  public String protocolVersion = "2025-11-25";
  /** The bearer token sent with every request, or null for none. */
  public String token;

  public McpTestClient(URI endpoint) {
    this.endpoint = endpoint;
  }

  /** A response: either one JSON body, or the events of an SSE stream read to its end. */
  public record Reply(int status, String contentType, Map<String, List<String>> headers, JsonObject json,
                      List<SseEvent> events) {
    /** The JSON-RPC messages in the reply, in order (the priming event has none). */
    public List<JsonObject> messages() {
      if (json != null) {
        return List.of(json);
      }
      List<JsonObject> messages = new ArrayList<>();
      for (SseEvent event : events) {
        if (event.data() != null && !event.data().isBlank()) {
          messages.add(event.json());
        }
      }
      return messages;
    }

    /** The final JSON-RPC response (the last message). */
    public JsonObject response() {
      List<JsonObject> messages = messages();
      return messages.get(messages.size() - 1);
    }

    public JsonObject result() {
      return response().getJsonObject("result");
    }

    public JsonObject error() {
      return response().getJsonObject("error");
    }

    public String header(String name) {
      return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
          .map(e -> e.getValue().get(0)).findFirst().orElse(null);
    }
  }

  public McpTestClient initialize() throws Exception {
    return initialize(new JsonObject());
  }

  public McpTestClient initialize(JsonObject capabilities) throws Exception {
    Reply reply = send(message("initialize", new JsonObject()
        .put("protocolVersion", protocolVersion)
        .put("capabilities", capabilities)
        .put("clientInfo", new JsonObject().put("name", "java-test").put("version", "1.0"))));
    if (reply.status() != 200 || reply.header("Mcp-Session-Id") == null) {
      throw new AssertionError("initialize failed: " + reply);
    }
    sessionId = reply.header("Mcp-Session-Id");
    notify("notifications/initialized", null);
    return this;
  }

  public JsonObject message(String method, JsonObject params) {
    JsonObject message = new JsonObject().put("jsonrpc", "2.0").put("id", ids.incrementAndGet()).put("method", method);
    if (params != null) {
      message.put("params", params);
    }
    return message;
  }

  public Reply call(String method, JsonObject params) throws Exception {
    return send(message(method, params));
  }

  public Reply notify(String method, JsonObject params) throws Exception {
    JsonObject notification = new JsonObject().put("jsonrpc", "2.0").put("method", method);
    if (params != null) {
      notification.put("params", params);
    }
    return send(notification);
  }

  public Reply send(JsonObject message) throws Exception {
    return send(post(message.encode()).build());
  }

  public HttpRequest.Builder post(String body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    return withSession(request);
  }

  /** This client, sending {@code Authorization: Bearer <token>} with every request from now on. */
  public McpTestClient withToken(String bearer) {
    this.token = bearer;
    return this;
  }

  public HttpRequest.Builder withSession(HttpRequest.Builder request) {
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    if (sessionId != null) {
      request.header("Mcp-Session-Id", sessionId).header("MCP-Protocol-Version", protocolVersion);
    }
    return request;
  }

  /** Sends and reads the whole reply (for a stream: until the server ends it). */
  public Reply send(HttpRequest request) throws Exception {
    HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    String type = response.headers().firstValue("Content-Type").orElse("");
    if (type.startsWith("text/event-stream")) {
      List<SseEvent> events = new ArrayList<>();
      try (SseStream stream = SseStream.of(response)) {
        for (SseEvent event = stream.next(); !event.event().equals("end-of-stream"); event = stream.next()) {
          events.add(event);
        }
      }
      return new Reply(response.statusCode(), type, response.headers().map(), null, events);
    }
    String body = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
    return new Reply(response.statusCode(), type, response.headers().map(), body.isEmpty() ? null : new JsonObject(body), List.of());
  }

  /** Sends a request whose reply is a stream, without waiting for it to end. */
  public SseStream stream(JsonObject message) throws Exception {
    return SseStream.open(http, post(message.encode()).build());
  }

  /** Calls a tool whose reply is a stream, and returns the stream once the call waits (past its priming event). */
  public SseStream waitingCall(JsonObject toolCall) throws Exception {
    SseStream stream = stream(message("tools/call", toolCall));
    stream.next();
    return stream;
  }

  /** Sends a request whose reply is a stream and cuts it after its first event, as a proxy might: the id to resume from. */
  public String cutAfterFirstEvent(JsonObject message) throws Exception {
    try (SseStream cut = stream(message)) {
      return cut.next().id();
    }
  }

  /** Reads {@code stream} up to the next JSON-RPC response (past the priming event and notifications). */
  public static JsonObject nextResponse(SseStream stream) throws Exception {
    while (true) {
      SseEvent event = stream.next();
      if (event.event().equals("end-of-stream")) {
        throw new AssertionError("stream ended without a response");
      }
      if (!event.data().isBlank() && (event.json().containsKey("result") || event.json().containsKey("error"))) {
        return event.json();
      }
    }
  }

  /** The person's answer in the tool result of {@code response}, which must answer {@code call}. */
  public static String answerTo(JsonObject call, JsonObject response) {
    assertThat(response.getLong("id")).as("the id of the call it answers").isEqualTo(call.getLong("id"));
    return response.getJsonObject("result").getJsonObject("structuredContent").getString("response");
  }

  /** GET on the endpoint: the standalone stream, or a resumed one with Last-Event-ID. */
  public SseStream get(String lastEventId) throws Exception {
    HttpRequest.Builder request = withSession(HttpRequest.newBuilder(endpoint).header("Accept", "text/event-stream").GET());
    if (lastEventId != null) {
      request.header("Last-Event-ID", lastEventId);
    }
    return SseStream.open(http, request.build());
  }
}
