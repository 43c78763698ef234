package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerResponse;

import java.util.ArrayList;
import java.util.List;

/**
 * One client request while it runs: who sent it, its parameters, and the way back. The answer is a
 * single JSON response unless the handler streams (progress, logging, requests to the client, a long
 * wait), in which case the response becomes an SSE stream that ends with the result.
 */
public final class RequestContext {
  private final McpServer server;
  private final McpSession session;
  private final Object credentials;
  private final JsonNode requestId;
  private final String method;
  private final ObjectNode params;
  private final MultiMap headers;
  private final HttpServerResponse response;
  private final List<Runnable> cancelHandlers = new ArrayList<>();
  private StreamToken resumeToken;
  private SseChannel stream;
  private long heartbeatTimer = -1;
  private boolean cancelled;
  private boolean finished;

  RequestContext(McpServer server, McpSession session, Object credentials, JsonNode requestId, String method,
                 ObjectNode params, MultiMap headers, HttpServerResponse response) {
    this.server = server;
    this.session = session;
    this.credentials = credentials;
    this.requestId = requestId;
    this.method = method;
    this.params = params;
    this.headers = headers;
    this.response = response;
    response.closeHandler(closed -> {
      if (!finished) {
        cancel();
      }
    });
  }

  public McpSession session() {
    return session;
  }

  /** What the request's authentication proved ({@link ClientAuthentication.ClientIdentity#credentials()}). */
  public Object credentials() {
    return credentials;
  }

  public JsonNode requestId() {
    return requestId;
  }

  /** How logs name this request: the start of its session's id, which is a secret, and its JSON-RPC id. */
  public String logName() {
    return McpServer.abbreviate(session.id()) + "/" + requestId.asText();
  }

  public String method() {
    return method;
  }

  public ObjectNode params() {
    return params;
  }

  /** The request's {@code _meta}, empty when it has none. */
  public ObjectNode meta() {
    return McpJson.objectOrEmpty(params, "_meta");
  }

  /** An HTTP request header, such as X-Ark-Agent. */
  public String header(String name) {
    return headers.get(name);
  }

  /**
   * Makes this request resumable: if its stream is cut, a GET with the last event id finishes it
   * through the {@link Resumer} registered for {@code kind}, given {@code state}. Call before streaming.
   */
  public void resumable(String kind, JsonNode state) {
    resumeToken = new StreamToken(requestId, kind, state, meta().get("progressToken"));
  }

  /** Switches the response to an SSE stream now (a priming event lets the client resume from here). */
  public void stream() {
    if (stream != null || finished) {
      return;
    }
    String token = resumeToken != null
        ? resumeToken.encode(server.settings().streamTokenKeys(), session) : server.live().nextStreamToken();
    stream = new SseChannel(response, token);
    stream.open(ProtocolVersions.sendsPrimingEvents(session.protocolVersion()), server.settings().sseRetryMillis());
    heartbeatTimer = server.live().everySoOften(server.settings().heartbeatMillis(), stream::heartbeat);
    if (server.live().stopping()) {
      cutIfResumable();
    }
  }

  public void notify(String notificationMethod, JsonNode notificationParams) {
    if (cancelled || finished) {
      return;
    }
    stream();
    stream.send(JsonRpcMessage.notification(notificationMethod, notificationParams));
  }

  /** Whether the client asked for progress on this request: without it, {@link #progress} sends nothing. */
  public boolean wantsProgress() {
    JsonNode token = meta().get("progressToken");
    return token != null && (token.isTextual() || token.isNumber());
  }

  /** Sends {@code notifications/progress} if the client asked for progress on this request. */
  public void progress(double progress, Double total, String message) {
    if (!wantsProgress()) {
      return;
    }
    JsonNode token = meta().get("progressToken");
    ObjectNode notification = McpJson.object();
    notification.set("progressToken", token);
    notification.put("progress", progress);
    if (total != null) {
      notification.put("total", total);
    }
    if (message != null) {
      notification.put("message", message);
    }
    notify("notifications/progress", notification);
  }

  /** Sends {@code notifications/message} if the session's log level lets it through. */
  public void log(String level, String logger, JsonNode data) {
    if (!LogLevel.passes(level, session.logLevel())) {
      return;
    }
    ObjectNode notification = McpJson.object().put("level", level);
    if (logger != null) {
      notification.put("logger", logger);
    }
    notification.set("data", data);
    notify("notifications/message", notification);
  }

  /** Sends a request to the client on this request's stream and completes with the client's result. */
  public Future<JsonNode> request(String requestMethod, ObjectNode requestParams) {
    if (cancelled || finished) {
      return Future.failedFuture(new JsonRpcError(JsonRpcError.INTERNAL_ERROR, "request already ended", null));
    }
    stream();
    return server.live().askClient(session.id(), requestMethod, requestParams, stream::send);
  }

  /** Runs {@code action} periodically while the request runs (first time at a random point of the first period). */
  public long periodically(long periodMillis, Runnable action) {
    return server.live().everySoOften(periodMillis, action);
  }

  public void onCancel(Runnable handler) {
    if (cancelled) {
      handler.run();
    } else {
      cancelHandlers.add(handler);
    }
  }

  /**
   * Closes this request's stream before its result, as a proxy cutting the connection would. A
   * resumable request is then finished by the client's GET with Last-Event-ID; its result here is dropped.
   */
  public void cutStream() {
    cancel();
  }

  /**
   * Cuts the stream if the client can resume it: it is resumable and the client has an event id to resume from
   * (the priming event's; clients of protocol versions before priming events have one only after a notification).
   */
  void cutIfResumable() {
    if (stream != null && resumeToken != null && stream.sentAnEventId()) {
      cutStream();
    }
  }

  void cancel() {
    if (cancelled || finished) {
      return;
    }
    cancelled = true;
    cancelHandlers.forEach(Runnable::run);
    end();
  }

  /** Sends the response (as JSON, or as the last event of the stream). After a cancel nothing is sent. */
  void finish(JsonNode result, JsonRpcError error) {
    if (finished || cancelled) {
      return;
    }
    ObjectNode message = error == null
        ? JsonRpcMessage.response(requestId, result)
        : JsonRpcMessage.errorResponse(requestId, error);
    if (stream == null) {
      finished = true;
      if (!response.closed()) {
        response.setStatusCode(200).putHeader("Content-Type", "application/json").end(McpJson.write(message));
      }
      return;
    }
    finished = true;
    stopHeartbeat();
    stream.endWith(message);
  }

  private void end() {
    finished = true;
    stopHeartbeat();
    if (stream != null) {
      stream.end();
    } else if (!response.closed() && !response.ended()) {
      response.setStatusCode(202).end();
    }
  }

  private void stopHeartbeat() {
    if (heartbeatTimer >= 0) {
      server.vertx().cancelTimer(heartbeatTimer);
    }
  }
}
