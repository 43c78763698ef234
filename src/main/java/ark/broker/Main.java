package ark.broker;

import ark.broker.auth.Authenticators;
import ark.broker.bus.Addresses;
import ark.broker.bus.BusCodecs;
import ark.broker.bus.EventStore;
import ark.broker.bus.McpSessionStore;
import ark.broker.bus.MemoryStore;
import ark.broker.bus.Messages;
import ark.broker.bus.QuestionRetention;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoresReplayed;
import ark.broker.channel.ChannelSettings;
import ark.broker.channel.ChannelVerticle;
import ark.broker.events.EventSettings;
import ark.broker.events.EventsVerticle;
import ark.broker.http.ArkApiSettings;
import ark.broker.http.ArkStores;
import ark.broker.http.HttpSettings;
import ark.broker.http.HttpVerticle;
import ark.broker.kube.KubeSettings;
import ark.broker.kube.KubeVerticle;
import ark.broker.log.EventLog;
import ark.broker.log.FileEventLog;
import ark.broker.log.KafkaEventLog;
import ark.broker.log.KafkaLogSettings;
import ark.broker.logging.LogFormat;
import ark.broker.logging.RequestLines;
import ark.broker.mcp.McpSettings;
import ark.broker.mcp.McpVerticle;
import ark.broker.mcp.protocol.McpFeatures;
import ark.broker.memory.MemorySettings;
import ark.broker.memory.MemoryVerticle;
import ark.broker.querysessions.QuerySessionSettings;
import ark.broker.querysessions.QuerySessionsVerticle;
import ark.broker.question.EscalationRule;
import ark.broker.store.Budgets;
import ark.broker.store.SessionStoreVerticle;
import ark.broker.store.StoreSettings;
import ark.broker.store.StoreVerticle;
import ark.broker.streams.StreamSettings;
import ark.broker.streams.StreamVerticle;
import ark.broker.traces.TraceSettings;
import ark.broker.traces.TracesVerticle;
import ark.broker.wire.QuestionJson;
import ark.broker.worker.KafkaWorkerSettings;
import ark.broker.worker.KafkaWorkerVerticle;
import ark.broker.worker.SoleWorkerVerticle;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Deployable;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/** Starts the broker: reads the configuration and deploys every room. The only class that knows them all. */
public final class Main {
  private static final Logger LOG = LoggerFactory.getLogger(Main.class);
  static final String QUESTIONS_LOG = "questions";
  static final String SESSIONS_LOG = "sessions";
  static final String MEMORY_LOG = "memory";
  static final String STREAMS_LOG = "streams";
  static final String EVENTS_LOG = "events";
  static final String TRACES_LOG = "traces";

  private Main() {
  }

  /**
   * What a started broker exposes to its caller (the process, or a test).
   *
   * @param servingDeployments the deployments that serve clients on the ports (REST, MCP): a stop undeploys them first
   */
  public record RunningBroker(int httpPort, int mcpPort, List<String> servingDeployments) {
  }

  /** The commands beside the server: {@code java -jar ark-broker.jar <name> <directory>}. */
  private static final Map<String, StateCommandEntry> COMMANDS = Map.of(
      BackupCommand.NAME, BackupCommand::run, ExportCommand.NAME, ExportCommand::run, ImportCommand.NAME, ImportCommand::run);

  /** One of the commands: runs with the arguments, the environment and the process's output; returns its exit status. */
  private interface StateCommandEntry {
    int run(String[] args, Map<String, String> env, java.io.PrintStream out, java.io.PrintStream err);
  }

  public static void main(String[] args) {
    if (args.length > 0 && COMMANDS.containsKey(args[0])) {
      System.exit(COMMANDS.get(args[0]).run(args, System.getenv(), System.out, System.err));
    }
    Vertx vertx = NativeTransport.vertx();
    ProcessShutdown shutdown = ProcessShutdown.install(vertx);
    DirectMemoryWatch.start();
    try {
      JsonObject config = ConfigLoader.load(vertx, System.getenv()).await();
      // From here on the process logs in the configured format; an unknown one stops the start.
      LogFormat.use(config.getJsonObject("log").getString("format"));
      ShutdownSettings stopping = ShutdownSettings.from(config.getJsonObject("shutdown"));
      RequestLines.use(config.getJsonObject("log").getBoolean("requests"));
      // What can refuse the start refuses it now, not after the warm-up's seconds.
      Authenticators authenticators = StartupChecks.run(config);
      boolean warming = StartupWarmUp.seconds(config) > 0;
      shutdown.serving(start(vertx, config, authenticators, features -> { }, warming).await(), stopping);
      if (warming) {
        StartupWarmUp.run(config);
        vertx.eventBus().publish(Addresses.BROKER_WARMED, null);
        LOG.info("Ark Broker ready: warmed up, serving every request");
      }
    } catch (Exception failure) {
      if (shutdown.stoppingBeforeServing()) {
        return; // the shutdown hook ends the process, with 0
      }
      LOG.error("Ark Broker failed to start: {}", failure.getMessage());
      shutdown.exit(1);
    }
  }

  /**
   * Stops serving clients, gracefully: /readyz answers 503 at once and every response asks its client to reconnect,
   * for the settings' delay, so load balancers send new work to other replicas; then the REST and MCP rooms are
   * undeployed, which stops their ports accepting connections, ends the streams their clients resume elsewhere, and
   * gives the requests still running the settings' timeout. The stores stay up meanwhile, so those requests finish.
   */
  static Future<Void> stopServing(Vertx vertx, RunningBroker broker, ShutdownSettings settings) {
    vertx.eventBus().publish(Addresses.BROKER_DRAINING, new Messages.Draining(settings.timeout().toMillis()));
    Promise<Void> delayed = Promise.promise();
    vertx.setTimer(Math.max(1, settings.delay().toMillis()), elapsed -> delayed.complete());
    return delayed.future()
        .compose(elapsed -> Future.join(broker.servingDeployments().stream().map(vertx::undeploy).toList()))
        .mapEmpty();
  }

  /** Where the configuration keeps the state, in words for an operator. */
  static String whereStateIs(JsonObject config) {
    return replicated(config)
        ? "Kafka at " + config.getJsonObject("kafka").getString("bootstrapServers")
        : "the embedded log in " + Path.of(config.getJsonObject("store").getString("dataDir")).toAbsolutePath().normalize();
  }

  /** Kafka configured means replicas: both logs, the worker election and the data directory follow this one decision. */
  static boolean replicated(JsonObject config) {
    return !config.getJsonObject("kafka").getString("bootstrapServers").isBlank();
  }

  /**
   * A store that keeps its state in an event log of its own.
   *
   * @param log the log's name: its directory under {@code store.dataDir}, its topic's key {@code kafka.<log>Topic}
   * @param kafkaRetention null for keyed state (a compacted topic); else what Kafka keeps of a log only appended to
   * @param store the store's verticle on the log it is given
   * @param visibleBeforeSync on the embedded log, whether readers get a record once it is written rather than once
   *     it is synced (its writer's answer still waits for the sync)
   */
  record StoreOnLog(String log, KafkaLogSettings.Retention kafkaRetention, Function<EventLog, Deployable> store,
                    boolean visibleBeforeSync) {
    StoreOnLog(String log, KafkaLogSettings.Retention kafkaRetention, Function<EventLog, Deployable> store) {
      this(log, kafkaRetention, store, false);
    }

    /** The log: its Kafka topic when replicated (shared by every replica), else its directory under store.dataDir. */
    EventLog open(Vertx vertx, JsonObject config) {
      if (replicated(config)) {
        return new KafkaEventLog(vertx, KafkaLogSettings.from(config.getJsonObject("kafka"), log + "Topic",
            kafkaRetention));
      }
      JsonObject store = config.getJsonObject("store");
      Path dir = Path.of(store.getString("dataDir")).resolve(log);
      return visibleBeforeSync ? FileEventLog.visibleBeforeSync(vertx, dir, store.getBoolean("fsync"))
          : new FileEventLog(vertx, dir, store.getBoolean("fsync"));
    }
  }

  /**
   * Every store that keeps its state in an event log: what a broker starts, and what an export or import moves.
   *
   * @param mcpSettings asked only by the MCP session store's verticle, when it is made
   */
  static List<StoreOnLog> storesOnLogs(JsonObject config, Supplier<McpSettings> mcpSettings, MeterRegistry meters) {
    JsonObject store = config.getJsonObject("store");
    StoreSettings storeSettings = StoreSettings.from(store);
    Budgets budgets = Budgets.from(config.getJsonObject("budgets"));
    MemorySettings memorySettings = MemorySettings.from(config.getJsonObject("memory"), store);
    StreamSettings streamSettings = StreamSettings.from(config.getJsonObject("streams"), store);
    EventSettings eventSettings = EventSettings.from(config.getJsonObject("events"),
        config.getJsonObject("querySessions"), store);
    TraceSettings traceSettings = TraceSettings.from(config.getJsonObject("traces"), store);
    return List.of(
        new StoreOnLog(QUESTIONS_LOG, null, log -> new StoreVerticle(log, Clock.systemUTC(), meters, storeSettings, budgets,
            escalationRules(config.getJsonObject("escalation")), QuestionRetention.from(config.getJsonObject("retention")))),
        new StoreOnLog(SESSIONS_LOG, null, log -> new SessionStoreVerticle(log, storeSettings,
            mcpSettings.get().sessionIdle(), mcpSettings.get().maxSessions(), budgets, Clock.systemUTC(), meters)),
        new StoreOnLog(MEMORY_LOG, keptTwice(memorySettings.maxAgeMillis(), memorySettings.maxBytes()),
            log -> new MemoryVerticle(log, memorySettings, Clock.systemUTC(), meters)),
        // A chunk reaches readers once written; only its producer waits for the disk.
        new StoreOnLog(STREAMS_LOG, keptTwice(streamSettings.maxAgeMillis(), streamSettings.maxBytes()),
            log -> new StreamVerticle(log, streamSettings, Clock.systemUTC(), meters), true),
        // The events log holds the sessions' facts too, which may outlive the events (and weigh about a quarter of them).
        new StoreOnLog(EVENTS_LOG, keptTwice(Math.max(eventSettings.maxAgeMillis(), eventSettings.factsMaxAgeMillis()),
            eventSettings.maxBytes() + 4 * eventSettings.factsMaxBytes()),
            log -> new EventsVerticle(log, eventSettings, Clock.systemUTC(), meters)),
        new StoreOnLog(TRACES_LOG, keptTwice(traceSettings.maxAgeMillis(), traceSettings.maxBytes()),
            log -> new TracesVerticle(log, traceSettings, Clock.systemUTC(), meters)));
  }

  /**
   * What Kafka keeps of a store's topic that only appends: twice what the store itself keeps, so a replica that
   * replays finds all the others hold (the store drops records itself, alike on every replica).
   */
  private static KafkaLogSettings.Retention keptTwice(long maxAgeMillis, long maxBytes) {
    return new KafkaLogSettings.Retention(2 * maxAgeMillis, 2 * maxBytes);
  }

  public static Future<RunningBroker> start(Vertx vertx, JsonObject config) {
    return start(vertx, config, features -> { });
  }

  /** @param extraMcpFeatures more MCP tools, resources or prompts (the conformance fixtures) */
  public static Future<RunningBroker> start(Vertx vertx, JsonObject config, Consumer<McpFeatures> extraMcpFeatures) {
    // Decided before anything is deployed: a broker that may not run open on these addresses refuses to start,
    // and no half-started deployment outlives the refusal.
    Authenticators authenticators;
    try {
      // Each broker's bounds against the heap of the JVM it runs in, alone (tests run many in one JVM).
      HeapBudget.check(config, Runtime.getRuntime().maxMemory());
      authenticators = StartupChecks.authenticators(config);
    } catch (RuntimeException refused) {
      return Future.failedFuture(refused);
    }
    return start(vertx, config, authenticators, extraMcpFeatures, false);
  }

  /**
   * @param warming true: the ports open now but answer only probes (/readyz 503) until {@link Addresses#BROKER_WARMED}
   *                is published, once the start-up warm-up is done
   */
  private static Future<RunningBroker> start(Vertx vertx, JsonObject config, Authenticators authenticators,
                                             Consumer<McpFeatures> extraMcpFeatures, boolean warming) {
    BusCodecs.register(vertx.eventBus());
    vertx.exceptionHandler(failure -> LOG.error("Unexpected failure on a Vert.x thread", failure));
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(meters);
    new JvmGcMetrics().bindTo(meters);
    new ProcessorMetrics().bindTo(meters);

    JsonObject store = config.getJsonObject("store");
    StoreSettings storeSettings = StoreSettings.from(store);
    HttpSettings httpSettings = HttpSettings.from(config.getJsonObject("http"), storeSettings.requestTimeoutMillis());
    Path dataDir = Path.of(store.getString("dataDir"));
    JsonObject kafka = config.getJsonObject("kafka");
    boolean replicated = replicated(config);
    QuestionRetention retention = QuestionRetention.from(config.getJsonObject("retention"));
    McpSettings mcpSettings = McpSettings.from(config.getJsonObject("mcp"), replicated ? null : dataDir, retention);
    // Every room reaches the stores through these clients, so all wait for them equally long.
    QuestionStore questionStore = Addresses.QUESTION_STORE.client(vertx.eventBus(), storeSettings.requestTimeoutMillis());
    McpSessionStore sessionStore = Addresses.MCP_SESSION_STORE.client(vertx.eventBus(),
        storeSettings.requestTimeoutMillis());
    Map<String, Future<String>> storesDeployed = new HashMap<>();
    for (StoreOnLog onLog : storesOnLogs(config, () -> mcpSettings, meters)) {
      storesDeployed.put(onLog.log(), vertx.deployVerticle(onLog.store().apply(onLog.open(vertx, config))));
    }
    Future<String> memoryDeployed = storesDeployed.get(MEMORY_LOG);
    Future<String> eventsDeployed = storesDeployed.get(EVENTS_LOG);
    Future<String> storeDeployed = storesDeployed.get(QUESTIONS_LOG);
    MemoryStore memoryStore = Addresses.MEMORY_STORE.client(vertx.eventBus(), storeSettings.requestTimeoutMillis());
    EventStore eventStore = Addresses.EVENT_STORE.client(vertx.eventBus(), storeSettings.requestTimeoutMillis());
    // After the stores it is projected from: it replays them through their contracts.
    Future<String> sessionsProjected = Future.all(eventsDeployed, memoryDeployed).compose(stores -> vertx.deployVerticle(
        new QuerySessionsVerticle(eventStore, memoryStore, QuerySessionSettings.from(config.getJsonObject("querySessions")),
            Clock.systemUTC(), meters)));
    // Ready only once every store serves: the ports open before, and a request to a store still replaying finds none.
    StoresReplayed storesReplayed = new StoresReplayed();
    List<Future<String>> storeDeployments = new ArrayList<>(storesDeployed.values());
    storeDeployments.add(sessionsProjected);
    Future<Void> replayed = Future.all(storeDeployments).onSuccess(all -> storesReplayed.replayed()).mapEmpty();
    ArkStores arkStores = new ArkStores(ArkApiSettings.from(config.getJsonObject("arkApi"), config.getJsonObject("traces")),
        memoryStore,
        Addresses.STREAM_STORE.client(vertx.eventBus(), storeSettings.requestTimeoutMillis()), eventStore,
        Addresses.QUERY_SESSION_STORE.client(vertx.eventBus(), storeSettings.requestTimeoutMillis()),
        Addresses.TRACE_STORE.client(vertx.eventBus(), storeSettings.requestTimeoutMillis()));

    List<HttpVerticle> httpVerticles = Collections.synchronizedList(new ArrayList<>());
    Future<String> httpDeployed = vertx.deployVerticle(() -> {
      HttpVerticle verticle = new HttpVerticle(httpSettings, questionStore, arkStores, authenticators, meters,
          storesReplayed, warming);
      httpVerticles.add(verticle);
      return verticle;
    }, new DeploymentOptions().setInstances(httpSettings.instances()));

    Future<String> channelsDeployed = vertx.deployVerticle(new ChannelVerticle(
        ChannelSettings.from(config.getJsonObject("channels")), questionStore, !authenticators.isOpen(), Clock.systemUTC()));

    // After the store: the worker group follows the questions topic, which the store creates if missing.
    Future<String> workerDeployed = storeDeployed.compose(storeReady -> vertx.deployVerticle(replicated
        ? new KafkaWorkerVerticle(KafkaWorkerSettings.from(kafka), meters)
        : new SoleWorkerVerticle()));

    McpVerticle mcpVerticle = new McpVerticle(mcpSettings, questionStore, sessionStore, authenticators, Clock.systemUTC(), meters,
        extraMcpFeatures, warming);
    Future<String> mcpDeployed = vertx.deployVerticle(mcpVerticle);

    // After the store: its first full pass reads the view.
    KubeSettings kubeSettings = KubeSettings.from(config.getJsonObject("kube"));
    Future<String> kubeDeployed = storeDeployed.compose(storeReady -> vertx.deployVerticle(
        new KubeVerticle(kubeSettings, questionStore, meters)));

    // The replay is part of the start: a started broker is ready.
    List<Future<?>> deployments = new ArrayList<>(storeDeployments);
    deployments.addAll(List.of(httpDeployed, channelsDeployed, workerDeployed, mcpDeployed, kubeDeployed, replayed));
    // join, not all: a failed start is reported only once every deployment has settled, so the exit that
    // follows never races a deployment still under way (which left a stray "Promise already completed").
    return Future.join(deployments)
        .map(deployed -> {
          LOG.info("Ark Broker started: {}; REST API on http://{}:{}; MCP on http://{}:{}{}; network I/O on {}{}",
              replicated ? "state shared through Kafka at " + kafka.getString("bootstrapServers")
                  : "data in " + dataDir.toAbsolutePath().normalize(),
              httpSettings.host(), httpVerticles.get(0).port(),
              mcpSettings.host(), mcpVerticle.port(), mcpSettings.server().path(), NativeTransport.describe(vertx),
              warming ? "; /readyz and requests answer 503 until the warm-up is done" : "");
          return new RunningBroker(httpVerticles.get(0).port(), mcpVerticle.port(),
              List.of(httpDeployed.result(), mcpDeployed.result()));
        });
  }

  private static List<EscalationRule> escalationRules(JsonObject escalation) {
    try {
      return EscalationRule.parse(QuestionJson.MAPPER.readTree(escalation.getJsonArray("rules").encode()));
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("escalation.rules is not JSON", e);
    }
  }
}
