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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The MCP protocol, transport aside: the lifecycle and every method of revision 2025-11-25, from one table.
 * Durable session state lives in the {@link SessionRepository}; what this replica holds of connected clients
 * (requests in flight, standalone streams) in {@link LiveSessions}. One event loop only.
 */
public final class McpServer {
  private static final Logger LOG = LoggerFactory.getLogger(McpServer.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Vertx vertx;
  private final ServerSettings settings;
  private final McpFeatures features;
  private final SessionRepository sessions;
  private final Clock clock;
  private final LiveSessions live;
  private final RequestObserver observer;
  /** Every request method this server answers, each with what answers it; anything else gets -32601. */
  private final Map<String, Method> methods;
  /** Sessions being saved as in use right now, so concurrent requests do not save them again. */
  private final Set<String> marking = new HashSet<>();

  /** What answers one request method. */
  @FunctionalInterface
  private interface Method {
    Future<JsonNode> answer(RequestContext ctx);
  }

  /** The method name of a request that finishes a cut stream, for metrics and logs. */
  static final String RESUME = "resume";

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
    this.live = new LiveSessions(vertx, settings);
    this.methods = methodTable();
  }

  /**
   * The methods of revision 2025-11-25, in one table. The server answers its own (ping, the session's log level and
   * subscriptions); the features answer the rest, and their failures are told to clients as the features translate
   * them.
   */
  private Map<String, Method> methodTable() {
    Map<String, Method> table = new LinkedHashMap<>();
    table.put("ping", ctx -> Future.succeededFuture(McpJson.object()));
    table.put("logging/setLevel", this::setLogLevel);
    table.put("resources/subscribe", ctx -> subscribe(ctx, true));
    table.put("resources/unsubscribe", ctx -> subscribe(ctx, false));
    Map<String, Method> offered = new LinkedHashMap<>();
    offered.put("tools/list", ctx -> listed(ctx, "tools", features.tools.values().stream().map(Tool::definition).toList()));
    offered.put("tools/call", this::callTool);
    offered.put("resources/list", this::listResources);
    offered.put("resources/templates/list", ctx -> listed(ctx, "resourceTemplates",
        features.resources.stream().flatMap(p -> p.templates().stream()).toList()));
    offered.put("resources/read", this::readResource);
    offered.put("prompts/list", ctx -> listed(ctx, "prompts", features.prompts.values().stream().map(Prompt::definition).toList()));
    offered.put("prompts/get", this::getPrompt);
    offered.put("completion/complete", this::complete);
    offered.put("tasks/get", ctx -> tasks(ctx).get(ctx, taskId(ctx)).map(JsonNode.class::cast));
    offered.put("tasks/result", ctx -> tasks(ctx).result(ctx, taskId(ctx)).map(JsonNode.class::cast));
    offered.put("tasks/list", ctx -> tasks(ctx).list(ctx, cursor(ctx)).map(JsonNode.class::cast));
    offered.put("tasks/cancel", ctx -> tasks(ctx).cancel(ctx, taskId(ctx)).map(JsonNode.class::cast));
    offered.forEach((name, method) -> table.put(name, ctx -> translated(method.answer(ctx))));
    return Map.copyOf(table);
  }

  /** Whether {@code method} is one this server answers (a cut stream's resumption counts as {@code resume}). */
  public boolean answers(String method) {
    return methods.containsKey(method) || method.equals(RESUME);
  }

  Vertx vertx() {
    return vertx;
  }

  LiveSessions live() {
    return live;
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
        null, Set.of(), now, now);
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
    // The copies held by requests may be out of date: mark the session as it is now.
    live.inUse().forEach(id -> sessions.find(id).onSuccess(current -> {
      if (current != null) {
        used(current);
      }
    }));
  }

  Future<Void> endSession(McpSession session) {
    return sessions.delete(session.id()).onSuccess(deleted -> {
      live.sessionEnded(session.id());
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
    long started = System.nanoTime();
    live.started(ctx);
    work.onComplete(done -> {
      live.finished(ctx);
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
    Method method = methods.get(ctx.method());
    if (method == null) {
      return Future.failedFuture(JsonRpcError.methodNotFound(ctx.method()));
    }
    try {
      return method.answer(ctx);
    } catch (RuntimeException e) {
      // A feature may refuse before it returns a future (a caller it will not act for): translated the same.
      return translated(Future.failedFuture(e));
    }
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
      if (requestId != null && live.cancel(session.id(), requestId)) {
        LOG.debug("MCP request {} cancelled by the client", requestId);
      }
    }
    // notifications/initialized, roots/list_changed and the like need no action here.
  }

  /** A client's answer to a request we sent it. */
  void clientResponse(McpSession session, JsonRpcMessage message) {
    Promise<JsonNode> waiting = live.answered(session.id(), message.id());
    if (waiting == null) {
      LOG.debug("MCP response for unknown request {} ignored", message.id());
    } else if (message.error() != null) {
      waiting.fail(new JsonRpcError(message.error().path("code").asInt(JsonRpcError.INTERNAL_ERROR),
          message.error().path("message").asText("client error"), message.error().get("data")));
    } else {
      waiting.complete(message.result());
    }
  }

  /** Requests running now on this replica (waiting ones included). */
  public int requestsInFlight() {
    return live.requestsInFlight();
  }

  public int standaloneStreams() {
    return live.standaloneStreams();
  }

  /** Sends a notification on the session's standalone stream, if it has one on this replica. */
  public boolean notifySession(String sessionId, String method, JsonNode params) {
    return live.notifySession(sessionId, method, params);
  }

  /**
   * Sends {@code notifications/resources/updated} for {@code uri} on the standalone stream of every
   * session on this replica subscribed to it.
   */
  public void resourceUpdated(String uri) {
    live.resourceUpdated(uri);
  }

  /** Another replica (or this one) changed a session: keep the copy its stream uses current. */
  public void sessionChanged(McpSession session) {
    live.sessionChanged(session);
  }

  /** The session ended (perhaps on another replica): close what this replica holds of it. */
  public void sessionEnded(String sessionId) {
    live.sessionEnded(sessionId);
  }

  /**
   * This replica stops serving: standalone streams end, and the streams of waiting calls that can be resumed are
   * cut, so their clients resume them elsewhere. Other requests run on.
   */
  public void stopServing() {
    live.stopServing();
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
    return sessions.save(session).onSuccess(saved -> live.sessionChanged(session));
  }

  private JsonRpcError asRpcError(Throwable failure, RequestContext ctx) {
    if (failure instanceof JsonRpcError error) {
      return error;
    }
    LOG.error("MCP {} failed in session {}", ctx.method(), abbreviate(ctx.session().id()), failure);
    return new JsonRpcError(JsonRpcError.INTERNAL_ERROR, "Internal error", null);
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
