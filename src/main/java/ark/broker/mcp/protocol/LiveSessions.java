package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * What this replica holds of the sessions its clients are connected to now: their requests in flight, the requests
 * sent to them awaiting an answer, their standalone GET streams and, for those streams, what they subscribed to.
 * Lost with the process, by design: a session itself is durable in the {@link SessionRepository}, and a client
 * whose connection is cut resumes on any replica. One event loop only.
 */
final class LiveSessions {
  private final Vertx vertx;
  private final ServerSettings settings;
  private final Map<String, RequestContext> inFlight = new HashMap<>();
  private final Map<String, Promise<JsonNode>> awaitingClient = new HashMap<>();
  private final Map<String, StandaloneStream> standalone = new HashMap<>();
  /** The sessions with a standalone stream here, by each URI they subscribed to: a change looks up its few. */
  private final Map<String, Set<String>> subscribers = new HashMap<>();
  private long counter;
  /** Set when this replica stops serving: streams that clients resume elsewhere are cut as soon as they open. */
  private boolean stopping;

  private record StandaloneStream(SseChannel channel, long heartbeat, McpSession session) {
  }

  LiveSessions(Vertx vertx, ServerSettings settings) {
    this.vertx = vertx;
    this.settings = settings;
  }

  // ---- requests in flight ----

  /** A request of a session runs; it is cancelled when its session ends or its client cancels it. */
  void started(RequestContext ctx) {
    inFlight.put(key(ctx.session().id(), ctx.requestId()), ctx);
  }

  void finished(RequestContext ctx) {
    inFlight.remove(key(ctx.session().id(), ctx.requestId()), ctx);
  }

  /** Cancels the session's request {@code requestId}, if it runs here; whether it did. */
  boolean cancel(String sessionId, JsonNode requestId) {
    RequestContext running = inFlight.remove(key(sessionId, requestId));
    if (running == null) {
      return false;
    }
    running.cancel();
    return true;
  }

  int requestsInFlight() {
    return inFlight.size();
  }

  /** Sessions with a request in flight or an open stream here: in use, even when their clients send nothing new. */
  Set<String> inUse() {
    Set<String> open = new HashSet<>(standalone.keySet());
    inFlight.values().forEach(ctx -> open.add(ctx.session().id()));
    return open;
  }

  // ---- requests to clients ----

  /** Sends {@code method} to the session's client through {@code send}; completes with its answer, or fails in time. */
  Future<JsonNode> askClient(String sessionId, String method, ObjectNode params, Consumer<JsonNode> send) {
    JsonNode id = McpJson.MAPPER.getNodeFactory().textNode("s" + (++counter));
    String key = key(sessionId, id);
    Promise<JsonNode> answer = Promise.promise();
    awaitingClient.put(key, answer);
    long timer = vertx.setTimer(settings.clientRequestTimeoutMillis(), t -> {
      if (awaitingClient.remove(key) != null) {
        answer.fail(new JsonRpcError(JsonRpcError.INTERNAL_ERROR, "the client did not answer " + method + " in time", null));
      }
    });
    send.accept(JsonRpcMessage.request(id, method, params));
    return answer.future().onComplete(done -> vertx.cancelTimer(timer));
  }

  /** The promise of the request sent to the session's client that {@code message} answers, or null. */
  Promise<JsonNode> answered(String sessionId, JsonNode requestId) {
    return awaitingClient.remove(key(sessionId, requestId));
  }

  // ---- standalone streams and notifications ----

  boolean hasStandaloneStream(String sessionId) {
    return standalone.containsKey(sessionId);
  }

  int standaloneStreams() {
    return standalone.size();
  }

  void openStandalone(McpSession session, HttpServerResponse response) {
    SseChannel channel = new SseChannel(response, StreamToken.STANDALONE);
    channel.open(ProtocolVersions.sendsPrimingEvents(session.protocolVersion()), settings.sseRetryMillis());
    long heartbeat = everySoOften(settings.heartbeatMillis(), channel::heartbeat);
    standalone.put(session.id(), new StandaloneStream(channel, heartbeat, session));
    subscribe(session);
    response.closeHandler(closed -> closeStandalone(session.id()));
  }

  /** Sends a notification on the session's standalone stream, if it has one here; whether it did. */
  boolean notifySession(String sessionId, String method, JsonNode params) {
    StandaloneStream stream = standalone.get(sessionId);
    if (stream == null) {
      return false;
    }
    stream.channel.send(JsonRpcMessage.notification(method, params));
    return true;
  }

  /** Tells every session here subscribed to {@code uri} that it changed. */
  void resourceUpdated(String uri) {
    Set<String> sessionIds = subscribers.get(uri);
    if (sessionIds != null) {
      ObjectNode params = McpJson.object().put("uri", uri);
      // A copy: a stream found closed while writing leaves the index meanwhile.
      List.copyOf(sessionIds).forEach(id -> notifySession(id, "notifications/resources/updated", params));
    }
  }

  /** The session changed (here or on another replica): its stream here follows its subscriptions as they are now. */
  void sessionChanged(McpSession session) {
    StandaloneStream stream = standalone.get(session.id());
    if (stream != null) {
      unsubscribe(stream.session);
      standalone.put(session.id(), new StandaloneStream(stream.channel, stream.heartbeat, session));
      subscribe(session);
    }
  }

  /** The session ended (perhaps on another replica): its stream here closes and its requests here are cancelled. */
  void sessionEnded(String sessionId) {
    closeStandalone(sessionId);
    // A cancelled request finishes at once and leaves inFlight itself: collect them before cancelling any.
    List<String> ended = inFlight.keySet().stream().filter(key -> key.startsWith(sessionId + "/")).toList();
    ended.forEach(key -> {
      RequestContext request = inFlight.remove(key);
      if (request != null) {
        request.cancel();
      }
    });
  }

  /**
   * This replica stops serving: standalone streams end, and the streams of waiting calls that can be resumed are
   * cut, now and as soon as any other opens, so their clients reconnect with their last event id (through a load
   * balancer, to another replica) and finish there. Other requests run on.
   */
  void stopServing() {
    stopping = true;
    List.copyOf(standalone.keySet()).forEach(this::closeStandalone);
    List.copyOf(inFlight.values()).forEach(RequestContext::cutIfResumable);
  }

  boolean stopping() {
    return stopping;
  }

  /**
   * A periodic timer whose first run falls anywhere in the first period. Thousands of streams opened
   * together would otherwise tick together, and a burst of thousands of writes delays every answer
   * that arrives meanwhile.
   */
  long everySoOften(long periodMillis, Runnable action) {
    long first = 1 + ThreadLocalRandom.current().nextLong(periodMillis);
    return vertx.setPeriodic(first, periodMillis, id -> action.run());
  }

  String nextStreamToken() {
    return "r" + (++counter);
  }

  private void closeStandalone(String sessionId) {
    StandaloneStream stream = standalone.remove(sessionId);
    if (stream != null) {
      unsubscribe(stream.session);
      vertx.cancelTimer(stream.heartbeat);
      stream.channel.end();
    }
  }

  private void subscribe(McpSession session) {
    session.subscriptions().forEach(uri -> subscribers.computeIfAbsent(uri, key -> new LinkedHashSet<>()).add(session.id()));
  }

  private void unsubscribe(McpSession session) {
    session.subscriptions().forEach(uri -> subscribers.computeIfPresent(uri, (key, ids) -> {
      ids.remove(session.id());
      return ids.isEmpty() ? null : ids;
    }));
  }

  private static String key(String sessionId, JsonNode requestId) {
    return sessionId + "/" + (requestId.isTextual() ? "s:" + requestId.textValue() : "n:" + requestId.asText());
  }
}
