package ark.broker.http;

import ark.broker.auth.Authenticators;
import ark.broker.bus.Addresses;
import ark.broker.bus.Messages;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.ServingShutdown;
import ark.broker.bus.StoresReplayed;
import ark.broker.bus.WarmUpGate;
import ark.broker.edge.ConnectionLimits;
import ark.broker.edge.HostPolicy;
import ark.broker.edge.ListenAddress;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.StaticHandler;

/**
 * The REST and SSE surface on port 8080: questions for people and dashboards (and the dashboard
 * itself, at {@code /}), plus health, readiness and metrics for operators. Reaches state only
 * through the store on the event bus.
 */
public final class HttpVerticle extends VerticleBase {
  private static final String STILL_REPLAYING = "not ready: the stores are still replaying their event logs";
  private final HttpSettings settings;
  private final QuestionStore store;
  private final ArkStores ark;
  private final Authenticators authenticators;
  private final PrometheusMeterRegistry meters;
  private final WatchHub hub = new WatchHub();
  private ArkWatches<Messages.MemoryAppended> memoryWatches;
  private StreamRoutes streamRoutes;
  private ArkWatches<Messages.EventAppended> eventWatches;
  private ArkWatches<Messages.QuerySessionChanged> sessionWatches;
  private ArkWatches<Messages.SpanAppended> spanWatches;
  private final ServingShutdown shutdown = new ServingShutdown("http");
  private final WarmUpGate warmUp;
  private final StoresReplayed storesReplayed;
  private HttpServer server;
  private WorkerExecutor decoding;

  /**
   * @param storesReplayed whether every store serves: the port opens before they do, and is not ready until then
   * @param warming true: the port opens before the start-up warm-up is done, and serves only probes until it is
   */
  public HttpVerticle(HttpSettings settings, QuestionStore store, ArkStores ark, Authenticators authenticators,
                      PrometheusMeterRegistry meters, StoresReplayed storesReplayed, boolean warming) {
    this.warmUp = new WarmUpGate(warming);
    this.storesReplayed = storesReplayed;
    this.settings = settings;
    this.store = store;
    this.ark = ark;
    this.authenticators = authenticators;
    this.meters = meters;
  }

  @Override
  public Future<?> start() {
    QuestionRoutes questions = new QuestionRoutes(store, hub, vertx.eventBus());
    Router router = Router.router(vertx);
    router.route().handler(new RequestLog(meters, settings.accessLog()));
    BodyHandler body = BodyHandler.create(false).setBodyLimit(settings.bodyLimitBytes());
    router.get("/healthz").handler(ctx -> ctx.json(new JsonObject().put("status", "ok")));
    router.get("/livez").handler(ctx -> ctx.json(new JsonObject().put("status", "ok")));
    // Ark's probes (its chart's startup and liveness probes ask /health).
    router.get("/health").handler(ctx -> ctx.response().putHeader("Content-Type", "text/plain; charset=utf-8").end("OK"));
    router.get("/readyz").handler(this::ready);
    router.get("/metrics").handler(ctx -> ctx.response()
        .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        .end(meters.scrape()));
    // Only the probes and metrics above answer while the broker warms up; everything below waits for it.
    router.route().handler(ctx -> {
      if (warmUp.warming()) {
        ctx.fail(WarmUpGate.refusal());
      } else {
        ctx.next();
      }
    });
    // What people and agents reach from a browser: only under an allowed host name, and only with a principal.
    HostCheck hosts = new HostCheck(new HostPolicy(settings.allowedHosts()));
    // The metadata names the resource by the host asked for: only one the API answers to.
    router.get(ProtectedResource.PATH).handler(hosts).handler(ctx -> ProtectedResource.serve(ctx, authenticators));
    Authentication authentication = new Authentication(authenticators, false);
    // "/questions/*" matches "/questions" too: naming both ran these twice for every request to the collection.
    for (String path : new String[] {"/questions/*", "/whoami", "/audit/*"}) {
      router.route(path).handler(hosts).handler(authentication);
    }
    Dashboard dashboard = new Dashboard(authenticators);
    router.get(Dashboard.CONFIG_PATH).handler(hosts).handler(dashboard::config);
    router.get("/whoami").handler(QuestionRoutes::whoami);
    router.get("/audit").handler(questions::audit);
    router.get("/audit/removed").handler(questions::auditRemoved);
    router.get("/questions").handler(questions::list);
    router.post("/questions").handler(body).handler(questions::create);
    router.get("/questions/:id").handler(questions::get);
    router.get("/questions/:id/events").handler(questions::events);
    router.patch("/questions/:id").handler(body).handler(questions::answer);
    router.delete("/questions/:id").handler(questions::cancel);
    BodyHandler channelBody = BodyHandler.create(false).setBodyLimit(settings.channelBodyLimitBytes());
    ChannelEvents channelEvents = new ChannelEvents(vertx.eventBus(), settings.inboundTimeoutMillis());
    router.post("/channels/:channel/events").handler(channelBody).handler(channelEvents::forward);
    // An emailed answer link: the page (GET) and its form (POST); the token in them is the credential.
    router.route("/channels/:channel/answer").method(HttpMethod.GET).method(HttpMethod.POST)
        .handler(channelBody).handler(channelEvents::forward);
    HeldBytes held = HeldBytes.shared(vertx, ark.settings().maxHeldBytes());
    synchronized (held) {
      // Once for the process, whichever event loop's verticle comes first.
      if (meters.find("ark_broker_ark_api_held_bytes").gauge() == null) {
        Gauge.builder("ark_broker_ark_api_held_bytes", held, HeldBytes::held)
            .description("Bytes the clients of Ark's routes hold: unread by watches and stream readers, and bodies"
                + " being read")
            .register(meters);
      }
    }
    // Shared by every event loop's verticle: at most one body per core is decoded at once, whatever arrives.
    decoding = vertx.createSharedWorkerExecutor("ark-body-decoding", Runtime.getRuntime().availableProcessors());
    ArkRoutes arkRoutes = new ArkRoutes(hosts, new Authentication(authenticators, true), ark.settings(), decoding);
    memoryWatches = new ArkWatches<>(Addresses.MEMORY_APPENDED, ark.settings());
    new MemoryRoutes(ark.memory(), ark.events(), memoryWatches).mount(router, arkRoutes);
    streamRoutes = new StreamRoutes(ark.streams(), ark.settings());
    streamRoutes.mount(router, arkRoutes);
    eventWatches = new ArkWatches<>(Addresses.EVENTS_APPENDED, ark.settings());
    new EventRoutes(ark.events(), eventWatches).mount(router, arkRoutes);
    sessionWatches = new ArkWatches<>(Addresses.QUERY_SESSIONS_CHANGED, ark.settings());
    new SessionRoutes(ark.sessions(), ark.events(), sessionWatches).mount(router, arkRoutes);
    spanWatches = new ArkWatches<>(Addresses.SPANS_APPENDED, ark.settings());
    new TraceRoutes(ark.traces(), ark.settings(), spanWatches).mount(router, arkRoutes);
    router.get(OpenApi.PATH).handler(OpenApi.handler());
    // The dashboard: one page that lists and answers questions through this same API.
    router.get("/*").handler(hosts).handler(dashboard::secureHeaders)
        .handler(StaticHandler.create("webroot").setCachingEnabled(false));
    router.route().failureHandler(ErrorResponses::handle);
    for (int status : new int[] {404, 413, 415, 500}) {
      router.errorHandler(status, ErrorResponses::handle);
    }
    router.errorHandler(405, new AllowHeader(router, ErrorResponses::handle));
    ConnectionLimits limits = ConnectionLimits.shared(vertx, settings.limits());
    return hub.start(vertx, settings.heartbeatSeconds())
        .compose(flowing -> memoryWatches.start(vertx))
        .compose(flowing -> streamRoutes.start(vertx))
        .compose(flowing -> eventWatches.start(vertx))
        .compose(flowing -> sessionWatches.start(vertx))
        .compose(flowing -> spanWatches.start(vertx))
        .compose(flowing -> warmUp.follow(vertx))
        .compose(following -> shutdown.follow(vertx, limits))
        .compose(following -> ListenAddress.explained(
            limits.createServer(vertx, router, ErrorResponses::body)
                .listen(settings.port(), settings.host()), "http", settings.host(), settings.port()))
        .onSuccess(listening -> server = listening);
  }

  /** The port it listens on (the configured one, or the one the system chose for port 0). */
  public int port() {
    return server.actualPort();
  }

  /** Watches end with a word on why, and EventSource clients reconnect (to another replica) from their last id. */
  @Override
  public Future<?> stop() {
    return shutdown.stop(server, () -> {
      hub.endAll(SseFrames.opening("closing: this server is shutting down; reconnect with Last-Event-ID",
          QuestionRoutes.RETRY_MILLIS));
      memoryWatches.endAll();
      streamRoutes.endAll();
      eventWatches.endAll();
      sessionWatches.endAll();
      spanWatches.endAll();
    })
        .eventually(hub::stop)
        .eventually(memoryWatches::stop)
        .eventually(streamRoutes::stop)
        .eventually(eventWatches::stop)
        .eventually(sessionWatches::stop)
        .eventually(spanWatches::stop)
        .eventually(() -> decoding.close());
  }

  /**
   * Ready once every store has replayed its log and the start-up warm-up is done, and while the questions' logs take
   * writes (not while the disk is full); not once the process is stopping, so load balancers send new work elsewhere.
   */
  private void ready(RoutingContext ctx) {
    if (shutdown.draining()) {
      ErrorResponses.send(ctx, 503, "not ready: shutting down");
      return;
    }
    if (warmUp.warming()) {
      ctx.response().putHeader("Retry-After", Integer.toString(WarmUpGate.RETRY_AFTER_SECONDS));
      ErrorResponses.send(ctx, 503, "not ready: " + WarmUpGate.WARMING);
      return;
    }
    if (!storesReplayed.isReplayed()) {
      ErrorResponses.send(ctx, 503, STILL_REPLAYING);
      return;
    }
    store.status()
        .onSuccess(status -> {
          if (status.unwritable() != null) {
            ErrorResponses.send(ctx, 503, "not ready: " + status.unwritable());
            return;
          }
          ctx.json(new JsonObject()
              .put("status", "ready")
              .put("resourceVersion", Long.toString(status.position()))
              .put("questions", status.questions()));
        })
        .onFailure(notYet -> ErrorResponses.send(ctx, 503, STILL_REPLAYING));
  }
}
