package ark.broker.mcp;

import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.Messages.SessionRecord;
import ark.broker.bus.SessionIdle;
import ark.broker.mcp.protocol.McpFeatures;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.McpServer;
import ark.broker.mcp.protocol.McpSession;
import ark.broker.mcp.protocol.McpSettings;
import ark.broker.mcp.protocol.StreamableHttpEndpoint;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The MCP surface on its own port: agents call {@code ask_question} (plainly or as an MCP task), check
 * and withdraw questions, and read or subscribe to them as resources. State comes only from the
 * store over the event bus, including the sessions, so any replica serves any request.
 */
public final class McpVerticle extends VerticleBase {
  private static final String INSTRUCTIONS = """
      Ark Broker lets you ask people questions and get their answers. Call ask_question when you need a human \
      decision, approval or information; the answer may take a while, so prefer calling it as a task if your \
      client supports MCP tasks. Use list_pending_questions, get_question and cancel_question to follow up.""";

  private final JsonObject config;
  private final MeterRegistry meters;
  private final Consumer<McpFeatures> extraFeatures;
  private HttpServer server;

  /** @param extraFeatures more tools, resources or prompts to offer (the conformance fixtures use it) */
  public McpVerticle(JsonObject config, MeterRegistry meters, Consumer<McpFeatures> extraFeatures) {
    this.config = config;
    this.meters = meters;
    this.extraFeatures = extraFeatures;
  }

  @Override
  public Future<?> start() {
    EventBus bus = vertx.eventBus();
    long storeTimeout = config.getLong("storeTimeoutMillis", 10_000L);
    long pollInterval = config.getLong("taskPollIntervalMillis", 5_000L);
    QuestionBus questions = new QuestionBus(bus, storeTimeout);
    QuestionWatch watch = new QuestionWatch(vertx, questions, config.getLong("progressIntervalSeconds", 10L) * 1000);
    TaskObservers observers = new TaskObservers(pollInterval);
    QuestionResources resources = new QuestionResources(questions);
    AskQuestionTool ask = new AskQuestionTool(questions, watch, observers, pollInterval);
    QuestionTaskStore tasks = new QuestionTaskStore(questions, watch, observers, pollInterval);

    McpFeatures features = new McpFeatures("ark-broker", version(), INSTRUCTIONS)
        .tool(ask.tool())
        .tool(new PendingQuestionsTool(questions).tool())
        .tool(new GetQuestionTool(questions, watch).tool())
        .tool(new CancelQuestionTool(questions).tool())
        .resources(resources)
        .tasks(tasks)
        .resumer(AskQuestionTool.RESUME_KIND, ask::resume)
        .resumer(QuestionTaskStore.RESUME_KIND, tasks::resume);
    extraFeatures.accept(features);

    CachedSessionRepository sessions = new CachedSessionRepository(new BusSessionRepository(bus, storeTimeout),
        config.getInteger("sessionCacheSize", 100_000));
    McpServer mcp = new McpServer(vertx, settings(), features, sessions, (method, failed, nanos) ->
        Timer.builder("ark_broker_mcp_requests")
            .description("MCP requests by method and outcome, including how long waiting calls waited")
            // Clients choose method names: only known ones become tags, so metrics stay bounded.
            .tag("method", McpServer.METHODS.contains(method) ? method : "other")
            .tag("outcome", failed ? "error" : "ok")
            .publishPercentileHistogram()
            .register(meters)
            .record(nanos, TimeUnit.NANOSECONDS));
    Gauge.builder("ark_broker_mcp_requests_in_flight", mcp, McpServer::requestsInFlight)
        .description("MCP requests running now, waiting ask_question calls and tasks/result included").register(meters);
    Gauge.builder("ark_broker_mcp_standalone_streams", mcp, McpServer::standaloneStreams)
        .description("Open standalone GET streams of MCP sessions").register(meters);
    observers.attach(mcp);
    resources.attach(mcp);
    bus.<QuestionChange>localConsumer(Addresses.QUESTIONS_CHANGED, message -> {
      watch.changed(message.body());
      observers.changed(message.body().question());
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

    long savePeriod = settings().sessionSaveMillis();
    if (savePeriod > 0) {
      vertx.setPeriodic(savePeriod, tick -> mcp.keepOpenSessionsAlive());
    }

    Router router = Router.router(vertx);
    new StreamableHttpEndpoint(mcp).mount(router);
    router.route().handler(ctx -> ctx.response().setStatusCode(404).putHeader("Content-Type", "application/json")
        .end(McpJson.write(McpJson.object().put("error", "not found: the MCP endpoint is " + settings().path()))));
    return vertx.createHttpServer()
        .requestHandler(router)
        .listen(config.getInteger("port", 8081), config.getString("host", "127.0.0.1"))
        .onSuccess(listening -> server = listening);
  }

  public int port() {
    return server.actualPort();
  }

  private McpSettings settings() {
    List<String> hosts = config.getJsonArray("allowedHosts").stream().map(Object::toString).toList();
    return new McpSettings(
        config.getString("path", "/mcp"),
        config.getLong("bodyLimitBytes", 1_048_576L),
        hosts,
        config.getLong("sseRetryMillis", 1000L),
        config.getLong("heartbeatSeconds", 15L) * 1000,
        config.getLong("clientRequestTimeoutSeconds", 300L) * 1000,
        SessionIdle.period(Duration.ofSeconds(config.getLong("sessionIdleSeconds", 0L))).toMillis());
  }

  private static String version() {
    String version = McpVerticle.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }
}
