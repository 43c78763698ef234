package ark.broker.mcp.protocol;

import ark.broker.edge.HostPolicy;
import ark.broker.edge.RateLimitedWarning;
import ark.broker.edge.RequestAuthority;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.Locale;

/**
 * The Streamable HTTP transport of MCP 2025-11-25 on one path: POST carries client messages, GET
 * opens the standalone stream or resumes a cut one (Last-Event-ID), DELETE ends the session. Every
 * refusal uses the status the spec gives and a JSON-RPC error body.
 */
public final class StreamableHttpEndpoint {
  private static final Logger LOG = LoggerFactory.getLogger(StreamableHttpEndpoint.class);
  public static final String SESSION_HEADER = "Mcp-Session-Id";
  public static final String VERSION_HEADER = "MCP-Protocol-Version";

  private static final String IDENTITY = "mcp.identity";

  private final McpServer server;
  private final ServerSettings settings;
  private final HostPolicy hosts;
  private final ClientAuthentication authentication;
  /** A page rebinding its DNS name can send many: one line a period says that it happens, and for which host. */
  private final RateLimitedWarning refusedHosts = new RateLimitedWarning(LOG);

  public StreamableHttpEndpoint(McpServer server, ClientAuthentication authentication) {
    this.server = server;
    this.settings = server.settings();
    this.hosts = new HostPolicy(settings.allowedHosts());
    this.authentication = authentication;
  }

  public void mount(Router router) {
    String path = settings.path();
    router.route(path).handler(this::checkHost);
    router.route(path).handler(this::authenticate);
    router.post(path).handler(BodyHandler.create(false).setBodyLimit(settings.bodyLimitBytes())).handler(this::post);
    router.get(path).handler(this::get);
    router.delete(path).handler(this::delete);
    router.route(path).handler(ctx -> refuse(ctx.response().putHeader("Allow", "GET, POST, DELETE"), 405,
        JsonRpcError.TRANSPORT, "Method Not Allowed: " + ctx.request().method()));
    router.errorHandler(413, ctx -> refuse(ctx.response(), 413, JsonRpcError.INVALID_REQUEST,
        "Request body larger than " + settings.bodyLimitBytes() + " bytes"));
  }

  /**
   * Refuses (403) a request for a host (its {@code Host}, or its absolute-form target's) or from a browser origin
   * the endpoint does not answer to; for the endpoint, and for what names it, such as its metadata.
   */
  public void checkHost(RoutingContext ctx) {
    String refusal = hosts.refusal(RequestAuthority.of(ctx.request()), ctx.request().getHeader("Origin"));
    if (refusal != null) {
      refusedHosts.warn(() -> "MCP request refused: " + refusal);
      refuse(ctx.response(), 403, JsonRpcError.TRANSPORT, "Forbidden: " + refusal);
      return;
    }
    ctx.next();
  }

  private void authenticate(RoutingContext ctx) {
    // Deciding may take a worker thread's time: the body waits unread for the handlers after this one.
    ctx.request().pause();
    authentication.authenticate(ctx.request()).onComplete(done -> {
      ctx.request().resume();
      if (done.succeeded()) {
        ctx.put(IDENTITY, done.result());
        ctx.next();
      } else if (done.cause() instanceof ClientAuthentication.Refused refused) {
        if (refused.challenge() != null) {
          ctx.response().putHeader("WWW-Authenticate", refused.challenge());
        }
        refuse(ctx.response(), refused.status(), JsonRpcError.TRANSPORT, refused.getMessage());
      } else {
        unavailable(ctx.response(), done.cause());
      }
    });
  }

  private static ClientAuthentication.ClientIdentity identity(RoutingContext ctx) {
    return ctx.get(IDENTITY);
  }

  // ---- POST ----

  private void post(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    HttpServerResponse response = ctx.response();
    if (!accepts(request, "application/json") || !accepts(request, "text/event-stream")) {
      refuse(response, 406, JsonRpcError.TRANSPORT, "Not Acceptable: Accept must list application/json and text/event-stream");
      return;
    }
    String type = request.getHeader("Content-Type");
    if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
      refuse(response, 415, JsonRpcError.TRANSPORT, "Unsupported Media Type: Content-Type must be application/json");
      return;
    }
    if (!versionAcceptable(request, response)) {
      return;
    }
    JsonRpcMessage message;
    try {
      message = JsonRpcMessage.parse(parse(ctx.body().buffer()));
    } catch (JsonRpcError error) {
      refuse(response, 400, error.code(), error.getMessage());
      return;
    }
    String sessionId = request.getHeader(SESSION_HEADER);
    if (message.isRequest() && "initialize".equals(message.method())) {
      initialize(ctx, message, sessionId);
      return;
    }
    withSession(ctx, sessionId, session -> {
      if (message.isNotification()) {
        server.notification(session, message);
        response.setStatusCode(202).end();
      } else if (message.isResponse()) {
        server.clientResponse(session, message);
        response.setStatusCode(202).end();
      } else {
        RequestContext context = server.newContext(session, identity(ctx).credentials(), message.id(),
            message.method(), message.params(), request.headers(), response);
        server.run(context, server.dispatch(context));
      }
    });
  }

  private void initialize(RoutingContext ctx, JsonRpcMessage message, String sessionId) {
    HttpServerResponse response = ctx.response();
    if (sessionId != null) {
      refuse(response, 400, JsonRpcError.INVALID_REQUEST,
          "Invalid Request: initialize starts a session, so it must not carry Mcp-Session-Id");
      return;
    }
    Future<McpServer.Initialized> initialized;
    try {
      initialized = server.initialize(message.params(), identity(ctx));
    } catch (JsonRpcError error) {
      json(response, 200, JsonRpcMessage.errorResponse(message.id(), error));
      return;
    }
    initialized.onSuccess(done -> {
      response.putHeader(SESSION_HEADER, done.session().id());
      json(response, 200, JsonRpcMessage.response(message.id(), done.result()));
    }).onFailure(failure -> {
      if (failure instanceof SessionRepository.Full full) {
        LOG.warn("MCP initialize refused: {}", full.getMessage());
        json(response, 503, JsonRpcMessage.errorResponse(message.id(),
            new JsonRpcError(JsonRpcError.TRANSPORT, "Service Unavailable: " + full.getMessage(), null)));
      } else if (failure instanceof SessionRepository.OwnerFull full) {
        LOG.info("MCP initialize refused: {}", full.getMessage());
        json(response, 429, JsonRpcMessage.errorResponse(message.id(),
            new JsonRpcError(JsonRpcError.TRANSPORT, "Too Many Requests: " + full.getMessage(), null)));
      } else {
        unavailable(response, failure);
      }
    });
  }

  // ---- GET ----

  private void get(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    HttpServerResponse response = ctx.response();
    if (!accepts(request, "text/event-stream")) {
      refuse(response, 406, JsonRpcError.TRANSPORT, "Not Acceptable: Accept must list text/event-stream");
      return;
    }
    if (!versionAcceptable(request, response)) {
      return;
    }
    withSession(ctx, request.getHeader(SESSION_HEADER), session -> {
      String lastEventId = request.getHeader("Last-Event-ID");
      if (lastEventId != null && !StreamToken.isStandalone(lastEventId)) {
        resume(ctx, session, lastEventId);
      } else if (server.live().hasStandaloneStream(session.id())) {
        refuse(response, 409, JsonRpcError.TRANSPORT, "Conflict: this session already has a standalone SSE stream");
      } else {
        server.live().openStandalone(session, response);
      }
    });
  }

  /**
   * Finishes a cut request stream; a token that is not exactly one this server issued to this session (and its
   * principal) gets 400 with a JSON-RPC error, and no stream.
   */
  private void resume(RoutingContext ctx, McpSession session, String lastEventId) {
    StreamToken token;
    String refusal;
    try {
      token = StreamToken.decode(lastEventId, settings.streamTokenKeys(), session);
      refusal = server.resumeRefusal(token);
    } catch (IllegalArgumentException e) {
      token = null;
      refusal = e.getMessage();
    }
    if (refusal != null) {
      LOG.debug("MCP resumption refused in session {}: {}", McpServer.abbreviate(session.id()), refusal);
      refuse(ctx.response(), 400, JsonRpcError.INVALID_REQUEST, "Bad Request: " + refusal);
      return;
    }
    ObjectNode params = McpJson.object();
    if (token.progressToken() != null) {
      params.putObject("_meta").set("progressToken", token.progressToken());
    }
    RequestContext context = server.newContext(session, identity(ctx).credentials(), token.requestId(), "resume",
        params, ctx.request().headers(), ctx.response());
    server.run(context, server.resume(context, token));
  }

  // ---- DELETE ----

  private void delete(RoutingContext ctx) {
    withSession(ctx, ctx.request().getHeader(SESSION_HEADER), session -> server.endSession(session)
        .onSuccess(ended -> ctx.response().setStatusCode(200).end())
        .onFailure(failure -> unavailable(ctx.response(), failure)));
  }

  // ---- shared checks ----

  private interface SessionAction {
    void run(McpSession session);
  }

  private void withSession(RoutingContext ctx, String sessionId, SessionAction action) {
    HttpServerResponse response = ctx.response();
    if (sessionId == null || sessionId.isBlank()) {
      refuse(response, 400, JsonRpcError.TRANSPORT, "Bad Request: Mcp-Session-Id header is required; initialize first");
      return;
    }
    server.sessions().find(sessionId).onComplete(found -> {
      if (found.failed()) {
        unavailable(response, found.cause());
      } else if (found.result() == null || !found.result().owner().equals(identity(ctx).owner())) {
        // Another owner's session is as unknown as none: its id is a secret, and using it changes nothing.
        refuse(response, 404, JsonRpcError.SESSION_NOT_FOUND, "Session not found: initialize a new session");
      } else {
        server.used(found.result());
        action.run(found.result());
      }
    });
  }

  private boolean versionAcceptable(HttpServerRequest request, HttpServerResponse response) {
    String version = request.getHeader(VERSION_HEADER);
    if (version != null && !ProtocolVersions.isSupported(version)) {
      refuse(response, 400, JsonRpcError.TRANSPORT, "Bad Request: Unsupported protocol version: " + version
          + " (supported versions: " + String.join(", ", ProtocolVersions.SUPPORTED) + ")");
      return false;
    }
    return true;
  }

  private static boolean accepts(HttpServerRequest request, String mediaType) {
    String accept = request.getHeader("Accept");
    if (accept == null) {
      return false;
    }
    for (String range : accept.split(",")) {
      String type = range.split(";")[0].trim().toLowerCase(Locale.ROOT);
      if (type.equals(mediaType) || type.equals("*/*") || type.equals(mediaType.substring(0, mediaType.indexOf('/')) + "/*")) {
        return true;
      }
    }
    return false;
  }

  private static JsonNode parse(Buffer body) {
    if (body == null || body.length() == 0) {
      throw new JsonRpcError(JsonRpcError.PARSE_ERROR, "Parse error: empty body", null);
    }
    try {
      return McpJson.MAPPER.readTree(body.getBytes());
    } catch (IOException e) {
      String detail = e instanceof com.fasterxml.jackson.core.JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
      throw new JsonRpcError(JsonRpcError.PARSE_ERROR, "Parse error: " + detail, null);
    }
  }

  private static void unavailable(HttpServerResponse response, Throwable failure) {
    LOG.warn("MCP request failed: the session store is unavailable: {}", failure.getMessage());
    refuse(response, 503, JsonRpcError.INTERNAL_ERROR, "Service Unavailable: sessions cannot be read or saved right now");
  }

  private static void refuse(HttpServerResponse response, int status, int code, String message) {
    json(response, status, JsonRpcMessage.errorResponse(null, new JsonRpcError(code, message, null)));
  }

  private static void json(HttpServerResponse response, int status, JsonNode body) {
    if (!response.ended() && !response.closed()) {
      response.setStatusCode(status).putHeader("Content-Type", "application/json").end(McpJson.write(body));
    }
  }
}
