package ark.broker.mcp;

import ark.broker.auth.AuthFailure;
import ark.broker.auth.Authenticators;
import ark.broker.bus.Addresses;
import ark.broker.bus.McpSessionStore;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.Messages.SessionRecord;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.ServingShutdown;
import ark.broker.bus.StoreFailure;
import ark.broker.bus.WaitingAgents;
import ark.broker.bus.WarmUpGate;
import ark.broker.edge.ConnectionLimits;
import ark.broker.edge.ListenAddress;
import ark.broker.edge.MalformedRequests;
import ark.broker.mcp.protocol.JsonRpcError;
import ark.broker.mcp.protocol.JsonRpcMessage;
import ark.broker.mcp.protocol.McpFeatures;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.McpServer;
import ark.broker.mcp.protocol.McpSession;
import ark.broker.mcp.protocol.StreamableHttpEndpoint;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The MCP surface on its own port: agents call {@code ask_question} (plainly or as an MCP task), check
 * and withdraw questions, and read or subscribe to them as resources. State comes only from the
 * store over the event bus, including the sessions, so any replica serves any request.
 */
public final class McpVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(McpVerticle.class);
  private static final String INSTRUCTIONS = """
      Ark Broker lets you ask people questions and get their answers. Call ask_question when you need a human \
      decision, approval or information; the answer may take a while, so prefer calling it as a task if your \
      client supports MCP tasks. Use list_pending_questions, get_question and cancel_question to follow up.""";

  private final McpSettings settings;
  private final QuestionStore store;
  private final McpSessionStore sessionStore;
  private final Authenticators authenticators;
  private final Clock clock;
  private final MeterRegistry meters;
  private final Consumer<McpFeatures> extraFeatures;
  private final ServingShutdown shutdown = new ServingShutdown("mcp");
  private final WarmUpGate warmUp;
  private HttpServer server;
  private McpServer mcp;
  private QuestionWatch watch;

  /**
   * @param extraFeatures more tools, resources or prompts to offer (the conformance fixtures use it)
   * @param warming       true: the port opens before the start-up warm-up is done, and answers 503 until it is
   */
  public McpVerticle(McpSettings settings, QuestionStore store, McpSessionStore sessionStore,
                     Authenticators authenticators, Clock clock, MeterRegistry meters,
                     Consumer<McpFeatures> extraFeatures, boolean warming) {
    this.warmUp = new WarmUpGate(warming);
    this.settings = settings;
    this.store = store;
    this.sessionStore = sessionStore;
    this.authenticators = authenticators;
    this.clock = clock;
    this.meters = meters;
    this.extraFeatures = extraFeatures;
  }

  @Override
  public Future<?> start() {
    CachedSessionRepository sessions = new CachedSessionRepository(sessionStore, settings.sessionCacheSize());
    // The server reads the features only to answer requests, so they can be added once it exists.
    McpFeatures features = new McpFeatures("ark-broker", version(), INSTRUCTIONS).failures(McpVerticle::asRpcError);
    mcp = new McpServer(vertx, settings.server(), features, sessions, clock, (method, failed, nanos) ->
        Timer.builder("ark_broker_mcp_requests")
            .description("MCP requests by method and outcome, including how long waiting calls waited")
            // Clients choose method names: only known ones become tags, so metrics stay bounded.
            .tag("method", mcp.answers(method) ? method : "other")
            .tag("outcome", failed ? "error" : "ok")
            .publishPercentileHistogram()
            .register(meters)
            .record(nanos, TimeUnit.NANOSECONDS));
    Gauge.builder("ark_broker_mcp_requests_in_flight", mcp, McpServer::requestsInFlight)
        .description("MCP requests running now, waiting ask_question calls and tasks/result included").register(meters);
    Gauge.builder("ark_broker_mcp_standalone_streams", mcp, McpServer::standaloneStreams)
        .description("Open standalone GET streams of MCP sessions").register(meters);

    watch = new QuestionWatch(vertx, store, settings.progressIntervalMillis());
    QuestionTaskStore tasks = new QuestionTaskStore(store, watch, mcp, settings.taskPollIntervalMillis(),
        settings.retention());
    QuestionResources resources = new QuestionResources(store, mcp);
    AskQuestionTool ask = new AskQuestionTool(store, watch, tasks, new PlainCallWait(settings.plainCallWaitSeconds()),
        new Caller.Unattributed());
    features.tool(ask.tool());
    new FollowUpTools(store, watch).tools().forEach(features::tool);
    features.resources(resources)
        .tasks(tasks)
        .resumer(AskQuestionTool.RESUME_KIND, QuestionWatch::isResumeState, ask::resume)
        .resumer(QuestionTaskStore.RESUME_KIND, QuestionWatch::isResumeState, tasks::resume);
    extraFeatures.accept(features);

    EventBus bus = vertx.eventBus();
    WaitingAgents waitingAgents = new WaitingAgents();
    bus.<QuestionChange>localConsumer(Addresses.QUESTIONS_CHANGED, message -> {
      watch.changed(message.body());
      tasks.changed(message.body().question());
      waitingAgents.handed(message.body().position());
      resources.changed(message.body());
    });
    bus.<SessionRecord>localConsumer(Addresses.SESSIONS_CHANGED, message -> {
      sessions.changed(message.body());
      if (message.body().document() == null) {
        mcp.sessionEnded(message.body().id());
      } else {
        mcp.sessionChanged(McpSession.fromJson(message.body().document()));
      }
    });

    long savePeriod = settings.server().sessionSaveMillis();
    if (savePeriod > 0) {
      vertx.setPeriodic(savePeriod, tick -> mcp.keepOpenSessionsAlive());
    }

    Router router = Router.router(vertx);
    router.route().handler(this::servedOnceWarm);
    McpAuthentication authentication = new McpAuthentication(vertx, authenticators, settings.server().path());
    StreamableHttpEndpoint endpoint = new StreamableHttpEndpoint(mcp, authentication);
    // The metadata names the resource by the host asked for: only one the endpoint answers to.
    router.get(McpAuthentication.METADATA_PATH).handler(endpoint::checkHost).handler(authentication::serveMetadata);
    router.get(McpAuthentication.METADATA_PATH + settings.server().path()).handler(endpoint::checkHost)
        .handler(authentication::serveMetadata);
    endpoint.mount(router);
    router.route().handler(ctx -> ctx.response().setStatusCode(404).putHeader("Content-Type", "application/json")
        .end(McpJson.write(McpJson.object().put("error", "not found: the MCP endpoint is " + settings.server().path()))));
    router.route().failureHandler(McpVerticle::failed);
    ConnectionLimits limits = ConnectionLimits.shared(vertx, settings.limits());
    return warmUp.follow(vertx)
        .compose(following -> waitingAgents.serve(bus))
        .compose(following -> shutdown.follow(vertx, limits))
        .compose(following -> ListenAddress.explained(limits.createServer(vertx, router, (request, status, problem) ->
                McpJson.write(JsonRpcMessage.errorResponse(null,
                    new JsonRpcError(JsonRpcError.INVALID_REQUEST, "Bad Request: " + problem, null))))
            .listen(settings.port(), settings.host()), "mcp", settings.host(), settings.port()))
        .onSuccess(listening -> server = listening);
  }

  /**
   * Standalone streams end and waiting calls' streams are cut, so their clients reconnect with their last event id
   * (to another replica) and finish there; calls that wait a limited time (waitSeconds) return what they would at
   * its end, now.
   */
  @Override
  public Future<?> stop() {
    return shutdown.stop(server, () -> {
      mcp.stopServing();
      watch.endTimedWaits();
    });
  }

  public int port() {
    return server.actualPort();
  }

  /** While the broker warms up, a client is told to come back in a second, in JSON-RPC, and nothing is done. */
  private void servedOnceWarm(RoutingContext ctx) {
    if (!warmUp.warming()) {
      ctx.next();
      return;
    }
    ctx.response().setStatusCode(503).putHeader("Content-Type", "application/json")
        .putHeader("Retry-After", Integer.toString(WarmUpGate.RETRY_AFTER_SECONDS))
        .end(McpJson.write(JsonRpcMessage.errorResponse(null,
            new JsonRpcError(JsonRpcError.TRANSPORT, "Service unavailable: " + WarmUpGate.WARMING, null))));
  }

  /**
   * A request that threw outside the protocol layer's own handling: while being read (400), or a bug
   * (500). Failures with a status alone (413 from the body limit) go on to the protocol layer's handlers.
   */
  private static void failed(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (failure == null) {
      ctx.next();
      return;
    }
    boolean clients = MalformedRequests.failedWhileReading(ctx);
    if (clients) {
      LOG.warn("Refused an MCP request that could not be read: {}", failure.getMessage());
    } else {
      LOG.error("MCP request {} {} failed", ctx.request().method(), ctx.request().path(), failure);
    }
    if (!ctx.response().headWritten()) {
      ctx.response().setStatusCode(clients ? 400 : 500).putHeader("Content-Type", "application/json")
          .end(McpJson.write(JsonRpcMessage.errorResponse(null, clients
              ? new JsonRpcError(JsonRpcError.PARSE_ERROR, "Parse error: the request could not be read", null)
              : new JsonRpcError(JsonRpcError.INTERNAL_ERROR, "Internal error", null))));
    }
  }

  /**
   * The store's and the door's refusals as clients see them: a refused request is the caller's mistake, an
   * invalid-params error whose {@code data.status} is the HTTP status REST would answer (403: the caller may not
   * act so; 404: there is no such question for it; 410: it was removed after its retention; 422, 429); anything else means the store is away, an internal
   * error to the client.
   */
  static JsonRpcError asRpcError(Throwable failure) {
    if (!(failure instanceof StoreFailure) && !(failure instanceof AuthFailure)) {
      return null;
    }
    StoreFailure refused = StoreFailure.of(failure);
    return switch (refused.reason()) {
      // The data says which refusal it was, as a REST status; over a budget it also says when to retry.
      case INVALID, NOT_FOUND, GONE, CONFLICT, FORBIDDEN, UNPROCESSABLE, TOO_MANY_REQUESTS -> new JsonRpcError(
          JsonRpcError.INVALID_PARAMS,
          (refused.reason() == StoreFailure.Reason.FORBIDDEN ? "Forbidden: " : "") + refused.getMessage(),
          refused.reason() == StoreFailure.Reason.TOO_MANY_REQUESTS
              ? McpJson.object().put("status", refused.reason().code).put("retryAfterSeconds", refused.retryAfterSeconds())
              : McpJson.object().put("status", refused.reason().code));
      default -> new JsonRpcError(JsonRpcError.INTERNAL_ERROR,
          "The question store is unavailable: " + refused.getMessage(), null);
    };
  }

  private static String version() {
    String version = McpVerticle.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}
