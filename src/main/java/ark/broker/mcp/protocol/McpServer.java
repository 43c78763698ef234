package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The MCP protocol, transport aside: the lifecycle, every method of revision 2025-11-25 and the
 * per-replica state of live connections (requests in flight, standalone streams, requests sent to
 * clients). Durable session state lives in the {@link SessionRepository}. One event loop only.
 */
public final class McpServer {
  private static final Logger LOG = LoggerFactory.getLogger(McpServer.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Vertx vertx;
  private final ServerSettings settings;
  private final McpFeatures features;
  private final SessionRepository sessions;
  private final Clock clock;
  private final Map<String, RequestContext> inFlight = new HashMap<>();
  private final Map<String, Promise<JsonNode>> awaitingClient = new HashMap<>();
  private final Map<String, StandaloneStream> standalone = new HashMap<>();
  /** The sessions with a standalone stream here, by each URI they subscribed to: a change looks up its few. */
  private final Map<String, java.util.Set<String>> subscribers = new HashMap<>();
  private final RequestObserver observer;
  /** Sessions being saved as in use right now, so concurrent requests do not save them again. */
  private final java.util.Set<String> marking = new java.util.HashSet<>();
  private long counter;
  /** Set when this replica stops serving: streams that clients resume elsewhere are cut as soon as they open. */
  private boolean stopping;

  /** The request methods this server answers (anything else gets -32601). */
  public static final java.util.Set<String> METHODS = java.util.Set.of("ping", "logging/setLevel", "tools/list",
      "tools/call", "resources/list", "resources/templates/list", "resources/read", "resources/subscribe",
      "resources/unsubscribe", "prompts/list", "prompts/get", "completion/complete", "tasks/get", "tasks/result",
      "tasks/list", "tasks/cancel", "resume");

  /** Told of every finished request, for metrics. */
  @FunctionalInterface
  public interface RequestObserver {
    void finished(String method, boolean failed, long nanos);
  }

  public McpServer(Vertx vertx, ServerSettings settings, McpFeatures features, SessionRepository sessions, Clock clock,
                   RequestObserver observer) {
    this.vertx = vertx;
    this.settings = settings;
    this.features = features;
    this.sessions = sessions;
    this.clock = clock;
    this.observer = observer;
  }

  Vertx vertx() {
    return vertx;
  }

  ServerSettings settings() {
    return settings;
  }

  SessionRepository sessions() {
    return sessions;
  }

  // ---- lifecycle ----

  record Initialized(McpSession session, ObjectNode result) {
  }

  Future<Initialized> initialize(ObjectNode params, ClientAuthentication.ClientIdentity identity) {
    String requested = McpJson.requireText(params, "protocolVersion");
    ObjectNode clientInfo = McpJson.objectOrEmpty(params, "clientInfo");
    ObjectNode capabilities = McpJson.objectOrEmpty(params, "capabilities");
    String version = ProtocolVersions.negotiate(requested);
    Instant now = clock.instant();
    McpSession session = new McpSession(newSessionId(), identity.owner(), version, McpJson.write(clientInfo), McpJson.write(capabilities),
        null, java.util.Set.of(), now, now);
    int size = session.toJson().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (size > settings.maxSessionBytes()) {
      LOG.warn("MCP initialize refused: its session would take {} bytes, more than the {} allowed", size,
          settings.maxSessionBytes());
      throw JsonRpcError.invalidParams("clientInfo and capabilities are too large: the session would take "
          + size + " bytes, and this server keeps at most " + settings.maxSessionBytes() + " per session");
    }
    ObjectNode result = McpJson.object().put("protocolVersion", version);
    result.set("capabilities", features.capabilities());
    result.set("serverInfo", features.serverInfo);
    if (features.instructions != null) {
      result.put("instructions", features.instructions);
    }
    return sessions.start(session, identity).map(saved -> {
      LOG.info("MCP session {} started by {} {} (protocol {}, {} bytes)", abbreviate(session.id()),
          clientInfo.path("name").asText("an unnamed client"), clientInfo.path("version").asText(""), version, size);
      return new Initialized(session, result);
    });
  }

  /**
   * A request of the session arrived: if the session was last saved longer ago than the save period,
   * save it again so the store does not end it as idle. The request does not wait for it.
   */
  void used(McpSession session) {
    long period = settings.sessionSaveMillis();
    Instant now = clock.instant();
    if (period > 0 && session.savedAt().plusMillis(period).isBefore(now) && marking.add(session.id())) {
      saveSession(session.savedAt(now))
          .onComplete(done -> marking.remove(session.id()))
          .onFailure(failure -> LOG.debug("MCP session {} could not be marked as in use: {}", abbreviate(session.id()),
              failure.getMessage()));
    }
  }

  /**
   * Sessions with a request in flight (a call waiting days for a person) or an open stream are in use
   * even when their client sends nothing new: mark them so, every save period.
   */
  public void keepOpenSessionsAlive() {
    java.util.Set<String> open = new java.util.HashSet<>(standalone.keySet());
    inFlight.values().forEach(ctx -> open.add(ctx.session().id()));
    // The copies held by requests may be out of date: mark the session as it is now.
    open.forEach(id -> sessions.find(id).onSuccess(current -> {
      if (current != null) {
        used(current);
      }
    }));
  }

  Future<Void> endSession(McpSession session) {
    return sessions.delete(session.id()).onSuccess(deleted -> {
      sessionEnded(session.id());
      LOG.info("MCP session {} ended by the client", abbreviate(session.id()));
    });
  }

  // ---- requests ----

  RequestContext newContext(McpSession session, Object credentials, JsonNode id, String method, ObjectNode params,
                            MultiMap headers, HttpServerResponse response) {
    return new RequestContext(this, session, credentials, id, method, params, headers, response);
  }

  /** Runs a request and answers it through its context. */
  void run(RequestContext ctx, Future<JsonNode> work) {
    String key = key(ctx.session().id(), ctx.requestId());
    long started = System.nanoTime();
    inFlight.put(key, ctx);
    work.onComplete(done -> {
      inFlight.remove(key, ctx);
      long nanos = System.nanoTime() - started;
      // The client first: a waiting call's result should not wait for the metrics.
      if (done.succeeded()) {
        ctx.finish(done.result(), null);
      } else {
        ctx.finish(null, asRpcError(done.cause(), ctx));
      }
      observer.finished(ctx.method(), done.failed(), nanos);
    });
  }

  Future<JsonNode> dispatch(RequestContext ctx) {
    try {
      return switch (ctx.method()) {
        case "ping" -> Future.succeededFuture(McpJson.object());
        case "logging/setLevel" -> setLogLevel(ctx);
        case "resources/subscribe" -> subscribe(ctx, true);
        case "resources/unsubscribe" -> subscribe(ctx, false);
        case "initialize" -> throw new JsonRpcError(JsonRpcError.INVALID_REQUEST,
            "Invalid Request: this session is already initialized", null);
        default -> translated(offered(ctx));
      };
    } catch (RuntimeException e) {
      // A feature may refuse before it returns a future (a caller it will not act for): translated the same.
      return translated(Future.failedFuture(e));
    }
  }

  /** The methods the features answer. */
  private Future<JsonNode> offered(RequestContext ctx) {
    return switch (ctx.method()) {
      case "tools/list" -> listed(ctx, "tools", features.tools.values().stream().map(Tool::definition).toList());
      case "tools/call" -> callTool(ctx);
      case "resources/list" -> listResources(ctx);
      case "resources/templates/list" -> listed(ctx, "resourceTemplates",
          features.resources.stream().flatMap(p -> p.templates().stream()).toList());
      case "resources/read" -> readResource(ctx);
      case "prompts/list" -> listed(ctx, "prompts", features.prompts.values().stream().map(Prompt::definition).toList());
      case "prompts/get" -> getPrompt(ctx);
      case "completion/complete" -> complete(ctx);
      case "tasks/get" -> tasks(ctx).get(ctx, taskId(ctx)).map(JsonNode.class::cast);
      case "tasks/result" -> tasks(ctx).result(ctx, taskId(ctx)).map(JsonNode.class::cast);
      case "tasks/list" -> tasks(ctx).list(ctx, cursor(ctx)).map(JsonNode.class::cast);
      case "tasks/cancel" -> tasks(ctx).cancel(ctx, taskId(ctx)).map(JsonNode.class::cast);
      default -> throw JsonRpcError.methodNotFound(ctx.method());
    };
  }

  /**
   * The features' failures as the features translate them; the rest, and failures of the server's own
   * work such as saving the session, stay internal errors.
   */
  private <T> Future<T> translated(Future<T> work) {
    return work.recover(failure -> {
      JsonRpcError error = failure instanceof JsonRpcError ? null : features.failures.apply(failure);
      return Future.failedFuture(error == null ? failure : error);
    });
  }

  /**
   * Why a token signed for the session may not be resumed, or null if it may: the token must be of a kind
   * this server resumes and carry exactly the state that kind needs.
   */
  String resumeRefusal(StreamToken token) {
    McpFeatures.ResumeKind kind = features.resumers.get(token.kind());
    if (kind == null) {
      return "this server resumes no stream of kind '" + token.kind() + "'";
    }
    if (token.state() == null || !kind.accepts().test(token.state())) {
      return "the event id does not carry what a stream of kind '" + token.kind() + "' needs";
    }
    return null;
  }

  /** Finishes a request whose stream was cut, from the token of its last event id (checked by {@link #resumeRefusal}). */
  Future<JsonNode> resume(RequestContext ctx, StreamToken token) {
    ctx.resumable(token.kind(), token.state());
    ctx.stream();
    try {
      return translated(features.resumers.get(token.kind()).resumer().resume(ctx, token.state()));
    } catch (RuntimeException e) {
      return translated(Future.failedFuture(e));
    }
  }

  void notification(McpSession session, JsonRpcMessage message) {
    if ("notifications/cancelled".equals(message.method())) {
      JsonNode requestId = message.params().get("requestId");
      RequestContext running = requestId == null ? null : inFlight.remove(key(session.id(), requestId));
      if (running != null) {
        LOG.debug("MCP request {} cancelled by the client", requestId);
        running.cancel();
      }
    }
    // notifications/initialized, roots/list_changed and the like need no action here.
  }

  /** A client's answer to a request we sent it. */
  void clientResponse(McpSession session, JsonRpcMessage message) {
    Promise<JsonNode> waiting = awaitingClient.remove(key(session.id(), message.id()));
    if (waiting == null) {
      LOG.debug("MCP response for unknown request {} ignored", message.id());
    } else if (message.error() != null) {
      waiting.fail(new JsonRpcError(message.error().path("code").asInt(JsonRpcError.INTERNAL_ERROR),
          message.error().path("message").asText("client error"), message.error().get("data")));
    } else {
      waiting.complete(message.result());
    }
  }

  Future<JsonNode> sendToClient(String sessionId, String method, ObjectNode params, Consumer<JsonNode> send) {
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

  // ---- standalone GET streams and notifications ----

  private record StandaloneStream(SseChannel channel, long heartbeat, McpSession session) {
  }

  boolean hasStandaloneStream(String sessionId) {
    return standalone.containsKey(sessionId);
  }

  void openStandalone(McpSession session, HttpServerResponse response) {
    SseChannel channel = new SseChannel(response, StreamToken.STANDALONE);
    channel.open(ProtocolVersions.sendsPrimingEvents(session.protocolVersion()), settings.sseRetryMillis());
    long heartbeat = everySoOften(settings.heartbeatMillis(), channel::heartbeat);
    standalone.put(session.id(), new StandaloneStream(channel, heartbeat, session));
    subscribe(session);
    response.closeHandler(closed -> closeStandalone(session.id()));
  }

  /** Sends a notification on the session's standalone stream, if it has one on this replica. */
  public boolean notifySession(String sessionId, String method, JsonNode params) {
    StandaloneStream stream = standalone.get(sessionId);
    if (stream == null) {
      return false;
    }
    stream.channel.send(JsonRpcMessage.notification(method, params));
    return true;
  }

  /** Requests running now on this replica (waiting ones included). */
  public int requestsInFlight() {
    return inFlight.size();
  }

  public int standaloneStreams() {
    return standalone.size();
  }

  /**
   * Sends {@code notifications/resources/updated} for {@code uri} on the standalone stream of every
   * session on this replica subscribed to it.
   */
  public void resourceUpdated(String uri) {
    java.util.Set<String> sessionIds = subscribers.get(uri);
    if (sessionIds != null) {
      ObjectNode params = McpJson.object().put("uri", uri);
      // A copy: a stream found closed while writing leaves the index meanwhile.
      List.copyOf(sessionIds).forEach(id -> notifySession(id, "notifications/resources/updated", params));
    }
  }

  /** Another replica (or this one) changed a session: keep the copy its stream uses current. */
  public void sessionChanged(McpSession session) {
    StandaloneStream stream = standalone.get(session.id());
    if (stream != null) {
      unsubscribe(stream.session);
      standalone.put(session.id(), new StandaloneStream(stream.channel, stream.heartbeat, session));
      subscribe(session);
    }
  }

  private void subscribe(McpSession session) {
    session.subscriptions().forEach(uri -> subscribers.computeIfAbsent(uri, key -> new java.util.LinkedHashSet<>()).add(session.id()));
  }

  private void unsubscribe(McpSession session) {
    session.subscriptions().forEach(uri -> subscribers.computeIfPresent(uri, (key, ids) -> {
      ids.remove(session.id());
      return ids.isEmpty() ? null : ids;
    }));
  }

  /**
   * This replica stops serving: standalone streams end, and the streams of waiting calls that can be resumed are
   * cut, now and as soon as any other opens, so their clients reconnect with their last event id (through a load
   * balancer, to another replica) and finish there. Other requests run on.
   */
  public void stopServing() {
    stopping = true;
    List.copyOf(standalone.keySet()).forEach(this::closeStandalone);
    List.copyOf(inFlight.values()).forEach(RequestContext::cutIfResumable);
  }

  boolean stopping() {
    return stopping;
  }

  /** The session ended (perhaps on another replica): close what this replica holds of it. */
  public void sessionEnded(String sessionId) {
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

  private void closeStandalone(String sessionId) {
    StandaloneStream stream = standalone.remove(sessionId);
    if (stream != null) {
      unsubscribe(stream.session);
      vertx.cancelTimer(stream.heartbeat);
      stream.channel.end();
    }
  }

  /**
   * A periodic timer whose first run falls anywhere in the first period. Thousands of streams opened
   * together would otherwise tick together, and a burst of thousands of writes delays every answer
   * that arrives meanwhile.
   */
  long everySoOften(long periodMillis, Runnable action) {
    long first = 1 + java.util.concurrent.ThreadLocalRandom.current().nextLong(periodMillis);
    return vertx.setPeriodic(first, periodMillis, id -> action.run());
  }

  String nextStreamToken() {
    return "r" + (++counter);
  }

  // ---- methods ----

  private Future<JsonNode> setLogLevel(RequestContext ctx) {
    String level = LogLevel.require(McpJson.requireText(ctx.params(), "level"));
    return saveSession(ctx.session().withLogLevel(level)).map(saved -> McpJson.object());
  }

  private Future<JsonNode> callTool(RequestContext ctx) {
    String name = McpJson.requireText(ctx.params(), "name");
    Tool tool = features.tools.get(name);
    if (tool == null) {
      throw JsonRpcError.invalidParams("Unknown tool: " + name);
    }
    ObjectNode arguments = McpJson.objectOrEmpty(ctx.params(), "arguments");
    JsonNode task = ctx.params().get("task");
    if (task != null && !task.isNull()) {
      if (!task.isObject()) {
        throw JsonRpcError.invalidParams("task must be an object");
      }
      if (features.tasks == null || tool.taskSupport().equals("forbidden")) {
        throw new JsonRpcError(JsonRpcError.METHOD_NOT_FOUND, "Tool " + name + " does not run as a task", null);
      }
      return tool.handler().callAsTask(ctx, arguments, (ObjectNode) task).map(JsonNode.class::cast);
    }
    if (tool.taskSupport().equals("required")) {
      throw new JsonRpcError(JsonRpcError.METHOD_NOT_FOUND, "Tool " + name + " must be called as a task", null);
    }
    return tool.handler().call(ctx, arguments).map(JsonNode.class::cast);
  }

  private Future<JsonNode> listResources(RequestContext ctx) {
    List<Future<List<ObjectNode>>> lists = features.resources.stream().map(p -> p.list(ctx)).toList();
    return Future.all(lists).compose(all -> listed(ctx, "resources",
        lists.stream().flatMap(list -> list.result().stream()).toList()));
  }

  private Future<JsonNode> readResource(RequestContext ctx) {
    String uri = McpJson.requireText(ctx.params(), "uri");
    return owner(uri).read(ctx, uri).map(contents -> McpJson.object().set("contents", contents));
  }

  /**
   * Subscriptions are stored with the session, so they are bounded: in number, in URI length, and to
   * resources that exist. A request that would change nothing stores nothing.
   */
  private Future<JsonNode> subscribe(RequestContext ctx, boolean subscribed) {
    String uri = McpJson.requireText(ctx.params(), "uri");
    McpSession session = ctx.session();
    if (subscribed == session.subscriptions().contains(uri)) {
      return Future.succeededFuture(McpJson.object());
    }
    if (!subscribed) {
      return saveSession(session.withSubscription(uri, false)).map(saved -> McpJson.object());
    }
    if (uri.length() > settings.maxSubscriptionUriLength()) {
      throw JsonRpcError.invalidParams("uri is " + uri.length() + " characters long; subscriptions take"
          + " URIs of at most " + settings.maxSubscriptionUriLength());
    }
    if (session.subscriptions().size() >= settings.maxSubscriptionsPerSession()) {
      throw new JsonRpcError(JsonRpcError.INVALID_REQUEST, "Invalid Request: this session already has "
          + session.subscriptions().size() + " subscriptions, the most it may have; unsubscribe from one first", null);
    }
    return translated(owner(uri).exists(ctx, uri))
        .compose(exists -> saveSession(session.withSubscription(uri, true)))
        .map(saved -> McpJson.object());
  }

  private ResourceProvider owner(String uri) {
    return features.resources.stream().filter(p -> p.owns(uri)).findFirst()
        .orElseThrow(() -> resourceNotFound(uri));
  }

  public static JsonRpcError resourceNotFound(String uri) {
    return new JsonRpcError(JsonRpcError.RESOURCE_NOT_FOUND, "Resource not found: " + uri, McpJson.object().put("uri", uri));
  }

  private Future<JsonNode> getPrompt(RequestContext ctx) {
    String name = McpJson.requireText(ctx.params(), "name");
    Prompt prompt = features.prompts.get(name);
    if (prompt == null) {
      throw JsonRpcError.invalidParams("Unknown prompt: " + name);
    }
    return prompt.handler().get(ctx, McpJson.objectOrEmpty(ctx.params(), "arguments")).map(JsonNode.class::cast);
  }

  private Future<JsonNode> complete(RequestContext ctx) {
    ObjectNode ref = McpJson.objectOrEmpty(ctx.params(), "ref");
    ObjectNode argument = McpJson.objectOrEmpty(ctx.params(), "argument");
    String type = McpJson.requireText(ref, "type");
    if (!type.equals("ref/prompt") && !type.equals("ref/resource")) {
      throw JsonRpcError.invalidParams("ref.type must be ref/prompt or ref/resource");
    }
    McpJson.requireText(argument, "name");
    return features.completions.complete(ctx, ref, argument)
        .map(completion -> McpJson.object().set("completion", completion));
  }

  private TaskStore tasks(RequestContext ctx) {
    if (features.tasks == null) {
      throw JsonRpcError.methodNotFound(ctx.method());
    }
    return features.tasks;
  }

  private static String taskId(RequestContext ctx) {
    return McpJson.requireText(ctx.params(), "taskId");
  }

  private static String cursor(RequestContext ctx) {
    return McpJson.text(ctx.params(), "cursor");
  }

  /** Lists are short enough for one page; a cursor from anywhere else is refused. */
  private static Future<JsonNode> listed(RequestContext ctx, String field, List<ObjectNode> items) {
    if (cursor(ctx) != null) {
      throw JsonRpcError.invalidParams("invalid cursor: this list has a single page");
    }
    ObjectNode result = McpJson.object();
    ArrayNode array = result.putArray(field);
    items.forEach(array::add);
    return Future.succeededFuture(result);
  }

  private Future<Void> saveSession(McpSession session) {
    return sessions.save(session).onSuccess(saved -> sessionChanged(session));
  }

  private JsonRpcError asRpcError(Throwable failure, RequestContext ctx) {
    if (failure instanceof JsonRpcError error) {
      return error;
    }
    LOG.error("MCP {} failed in session {}", ctx.method(), abbreviate(ctx.session().id()), failure);
    return new JsonRpcError(JsonRpcError.INTERNAL_ERROR, "Internal error", null);
  }

  private static String key(String sessionId, JsonNode requestId) {
    return sessionId + "/" + (requestId.isTextual() ? "s:" + requestId.textValue() : "n:" + requestId.asText());
  }

  private static String newSessionId() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** Session ids are bearer secrets: logs show only their start. */
  public static String abbreviate(String sessionId) {
    return sessionId.length() <= 8 ? sessionId : sessionId.substring(0, 8) + "…";
  }
}
