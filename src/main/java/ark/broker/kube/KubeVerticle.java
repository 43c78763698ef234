package ark.broker.kube;

import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.WorkerRole;
import ark.broker.question.EventType;
import ark.broker.question.QueryRef;
import ark.broker.question.Question;
import ark.broker.reconcile.KeyedWorkQueue;
import ark.broker.reconcile.PeriodicPass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.eventbus.EventBus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The Kubernetes room. Shows pending questions on the Queries that asked them: by default the broker's own
 * {@link AwaitingHumanCondition} (which a stock Ark accepts), or, in the opt-in {@code phase} mode,
 * {@code status.phase: waiting} and {@code status.waitingFor} while a question is pending and {@code running}
 * without {@code waitingFor} once none is. Level-triggered: it compares what the view says a Query should show
 * with what the Query shows and patches the status subresource only where they differ, after every change that
 * names a Query and in a periodic full pass (which also finds Queries still showing questions settled while no
 * broker was watching). Only the worker replica patches. Queries in a terminal phase get no new question shown.
 * It also hosts {@link A2ATaskApprovals}, which turns Ark's approvals into questions, with the same client.
 */
public final class KubeVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(KubeVerticle.class);

  /** What one reconciliation of one Query came to; counted for operators. */
  private enum Outcome { PATCHED, UNCHANGED, TERMINAL, MISSING, UNWATCHED, FAILED }

  private final KubeSettings settings;
  private final QuestionStore store;
  private final MeterRegistry meters;
  private final Map<Outcome, Counter> outcomes = new EnumMap<>(Outcome.class);
  private final Clock clock;
  private WorkerExecutor executor;
  private KubernetesClient client;
  private QueryApi api;
  /** Null when {@code kube.approvals.enabled} is false. */
  private A2ATaskApprovals approvals;
  private Set<String> namespaces;
  /** Active while this replica is the worker: the only one that patches. */
  private PeriodicPass fullPasses;
  private KeyedWorkQueue<QueryRef> queries;

  /** Until its first full list it lacks older questions, and could wrongly release a Query. */
  private final PendingIndex<QueryRef> pending = new PendingIndex<>(question -> question.origin().query());

  /** Failures in a row per Query, so that only the first is a warning and a recovery is reported. */
  private final Map<QueryRef, Integer> failures = new HashMap<>();
  private final Set<QueryRef> reportedMissing = new HashSet<>();
  private final Set<String> reportedUnwatched = new HashSet<>();

  public KubeVerticle(KubeSettings settings, QuestionStore store, MeterRegistry meters) {
    this(settings, store, meters, Clock.systemUTC());
  }

  KubeVerticle(KubeSettings settings, QuestionStore store, MeterRegistry meters, Clock clock) {
    this.settings = settings;
    this.store = store;
    this.meters = meters;
    this.clock = clock;
  }

  @Override
  public Future<?> start() {
    executor = vertx.createSharedWorkerExecutor("ark-broker-kube", settings.apiThreads());
    return blocking(() -> ClusterAccess.decide(settings)).compose(decision -> {
      if (!decision.on()) {
        LOG.info("Query status is off: {}", decision.reason());
        return Future.succeededFuture();
      }
      return blocking(() -> new KubernetesClientBuilder().withConfig(decision.config()).build()).map(opened -> {
        client = opened;
        api = new QueryApi(client);
        namespaces = settings.namespaces().isEmpty()
            ? Set.of(client.getNamespace() == null ? "default" : client.getNamespace()) : Set.copyOf(settings.namespaces());
        registerMeters();
        queries = new KeyedWorkQueue<>(vertx, settings.apiThreads(), false, 0,
            KeyedWorkQueue.RetryPolicy.always(settings.retry()), this::reconcile);
        fullPasses = new PeriodicPass(vertx, "Full Query status pass", settings.resync().toMillis(), settings.retry(),
            this::fullPass);
        if (settings.approvals().enabled()) {
          approvals = new A2ATaskApprovals(vertx, executor, store, new A2ATaskApi(client), settings, namespaces);
        }
        EventBus bus = vertx.eventBus();
        // A question removed after its retention was settled long before: no Query waits for it.
        bus.<QuestionChange>localConsumer(Addresses.QUESTIONS_CHANGED, m -> {
          if (m.body().type() != EventType.REMOVED) {
            onChange(m.body().question());
          }
        });
        WorkerRole.follow(bus, this::workerRole);
        LOG.info("Query status is on ({} mode{}), configured from {}: API server {}, Queries in {}",
            settings.queryStatusMode().name().toLowerCase(Locale.ROOT),
            approvals == null ? "; A2ATask approvals off" : "; A2ATask approvals become questions", decision.reason(),
            client.getConfiguration().getMasterUrl(),
            namespaces.contains(KubeSettings.ALL_NAMESPACES) ? "every namespace" : "namespaces " + namespaces);
        return opened;
      });
    });
  }

  @Override
  public Future<?> stop() {
    if (client == null) {
      return executor.close();
    }
    if (approvals != null) {
      approvals.stop();
    }
    return blocking(() -> {
      client.close();
      return null;
    }).eventually(executor::close);
  }

  private void workerRole(boolean active) {
    if (active == fullPasses.isActive()) {
      return;
    }
    if (active) {
      LOG.info("This replica is the worker: reconciling every Query's status");
      failures.clear();
    } else {
      LOG.info("This replica is no longer the worker: leaving Query status to the new one");
    }
    fullPasses.setActive(active);
    if (approvals != null) {
      approvals.setActive(active);
    }
  }

  private void onChange(Question question) {
    if (approvals != null) {
      approvals.onChange(question);
    }
    QueryRef query = pending.changed(question);
    if (query != null) {
      offer(query);
    }
  }

  // ---- full pass: every Query the view names, and every Query that shows a question ----

  private Future<Void> fullPass() {
    return pending.rebuild(store)
        .compose(owners -> {
          owners.forEach(this::offer);
          return blocking(this::queriesShowingAQuestion);
        })
        .<Void>map(shown -> {
          shown.stream().map(QueryState::ref).filter(ref -> pending.of(ref).isEmpty()).forEach(this::offer);
          return null;
        })
        // The pass logs the failure's message: make it say what the API server answered, or why it was not reached.
        .recover(failure -> Future.failedFuture(new IllegalStateException(ApiFailures.describe(failure), failure)));
  }

  private List<QueryState> queriesShowingAQuestion() {
    List<QueryState> found = new ArrayList<>();
    for (String namespace : namespaces) {
      found.addAll(api.listShowingAQuestion(namespace, this::showsAQuestion));
    }
    return found;
  }

  // ---- one Query ----

  private void offer(QueryRef ref) {
    if (!fullPasses.isActive()) {
      return;
    }
    if (inScope(ref)) {
      queries.offer(ref);
      return;
    }
    count(Outcome.UNWATCHED);
    if (reportedUnwatched.add(ref.namespace())) {
      LOG.warn("Questions name Query {} in namespace {}, which this broker does not manage (kube.namespaces);"
          + " its status is left alone", ref, ref.namespace());
    }
  }

  /** Brings one Query's status in line with the view; the queue runs it one at a time per Query, and retries it. */
  private Future<Void> reconcile(QueryRef ref) {
    if (!fullPasses.isActive()) {
      return Future.succeededFuture();
    }
    return reconcileNow(ref).andThen(done -> {
      if (done.succeeded()) {
        settled(ref, done.result());
      } else {
        failed(ref, done.cause());
      }
    }).mapEmpty();
  }

  private Future<Outcome> reconcileNow(QueryRef ref) {
    return blocking(() -> api.get(ref)).compose(state -> {
      if (state == null) {
        return Future.succeededFuture(Outcome.MISSING);
      }
      // A replica that lost the worker role meanwhile leaves the patch to the new worker.
      return wanted(state, pending.of(ref)).compose(patch -> patch.isPresent() && fullPasses.isActive()
          ? apply(ref, patch.get())
          : Future.succeededFuture(state.isTerminal() ? Outcome.TERMINAL : Outcome.UNCHANGED));
    });
  }

  /**
   * What the Query should show. A finished Query gets no new question shown on it; in condition mode a condition
   * still {@code True} on it turns {@code False}, since nothing keeps it waiting any more.
   */
  private Future<Optional<StatusPatch>> wanted(QueryState state, List<Question> waitingOn) {
    if (settings.queryStatusMode() == KubeSettings.QueryStatusMode.CONDITION) {
      return Future.succeededFuture(AwaitingHumanCondition.wanted(state, state.isTerminal() ? List.of() : waitingOn,
          clock.instant()));
    }
    if (state.isTerminal()) {
      return Future.succeededFuture(Optional.empty());
    }
    return waitingOn.isEmpty() ? releaseIfSettled(state) : Future.succeededFuture(StatusPatch.waitingFor(state, waitingOn));
  }

  private boolean showsAQuestion(QueryState query) {
    return settings.queryStatusMode() == KubeSettings.QueryStatusMode.CONDITION ? AwaitingHumanCondition.shows(query)
        : query.isWaiting() || query.waitingFor() != null;
  }

  /**
   * A Query with no pending question goes back to running only if it waits for a question of this broker
   * that is settled: a question id the broker does not know was put there by someone else.
   */
  private Future<Optional<StatusPatch>> releaseIfSettled(QueryState state) {
    String shown = state.shownQuestionId();
    if (shown == null) {
      return Future.succeededFuture(Optional.empty());
    }
    return store.find(Actor.BROKER, shown).map(question -> question == null || question.isPending()
        || !state.ref().equals(question.origin().query()) ? Optional.empty() : StatusPatch.released(state));
  }

  private Future<Outcome> apply(QueryRef ref, StatusPatch patch) {
    return blocking(() -> api.patchStatus(ref, patch.body().encode())).map(patched -> {
      if (!patched) {
        return Outcome.MISSING;
      }
      LOG.info("Query {} is {}", ref, patch.description());
      return Outcome.PATCHED;
    });
  }

  private void settled(QueryRef ref, Outcome outcome) {
    count(outcome);
    Integer failed = failures.remove(ref);
    if (failed != null) {
      LOG.info("Query {} status reconciled after {} failed attempts", ref, failed);
    }
    if (outcome != Outcome.MISSING) {
      reportedMissing.remove(ref);
    } else if (pending.of(ref).isEmpty()) {
      reportedMissing.remove(ref); // nothing more to show on it: a later question may report it again
    } else if (reportedMissing.add(ref)) {
      LOG.warn("Query {} does not exist; its pending questions are not shown on it until it does", ref);
    }
  }

  private void failed(QueryRef ref, Throwable failure) {
    count(Outcome.FAILED);
    int attempts = failures.merge(ref, 1, Integer::sum);
    if (attempts == 1 && !ApiFailures.isConflict(failure)) {
      LOG.warn("Query {} status could not be reconciled ({}); retrying with backoff", ref, ApiFailures.describe(failure));
    } else {
      LOG.debug("Query {} status not reconciled yet (attempt {}): {}", ref, attempts, ApiFailures.describe(failure));
    }
  }

  private boolean inScope(QueryRef ref) {
    return namespaces.contains(KubeSettings.ALL_NAMESPACES) || namespaces.contains(ref.namespace());
  }

  private <T> Future<T> blocking(Callable<T> call) {
    return executor.executeBlocking(call, false);
  }

  private void count(Outcome outcome) {
    outcomes.get(outcome).increment();
  }

  private void registerMeters() {
    for (Outcome outcome : Outcome.values()) {
      outcomes.put(outcome, Counter.builder("ark_broker_query_status_reconciles")
          .description("Reconciliations of one Query's status, by what they came to")
          .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
          .register(meters));
    }
  }
}
