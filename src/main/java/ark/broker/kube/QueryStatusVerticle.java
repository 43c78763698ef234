package ark.broker.kube;

import ark.broker.bus.Addresses;
import ark.broker.bus.Failures;
import ark.broker.bus.Messages.GetQuestion;
import ark.broker.bus.Messages.ListQuestions;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.WorkerRole;
import ark.broker.question.QueryRef;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionPage;
import ark.broker.question.QuestionStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.eventbus.EventBus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.HttpURLConnection;
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
 * Shows pending questions on the Kubernetes Queries that asked them: {@code status.phase: waiting} and
 * {@code status.waitingFor} while a question is pending, {@code running} without {@code waitingFor} once
 * none is. Level-triggered: it compares what the view says a Query should show with what the Query shows
 * and patches the status subresource only where they differ, after every change that names a Query and
 * in a periodic full pass (which also finds Queries still waiting for questions settled while no broker
 * was watching). Only the worker replica patches. Queries in a terminal phase are never touched.
 */
public final class QueryStatusVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(QueryStatusVerticle.class);
  private static final QuestionFilter PENDING = new QuestionFilter(QuestionStatus.PENDING, null, null);
  private static final int PAGE = 1000;

  /** What one reconciliation of one Query came to; counted for operators. */
  private enum Outcome { PATCHED, UNCHANGED, TERMINAL, MISSING, UNWATCHED, FAILED }

  private final KubeSettings settings;
  private final MeterRegistry meters;
  private final Map<Outcome, Counter> outcomes = new EnumMap<>(Outcome.class);
  private WorkerExecutor executor;
  private QueryApi api;
  private Set<String> namespaces;

  private PendingQuestions pending = new PendingQuestions();
  /** The index a full pass is building; it receives changes too, so swapping it in loses none. */
  private PendingQuestions rebuilding;
  /** Until the first full list, the index lacks older questions and could wrongly release a Query. */
  private boolean indexComplete;
  private boolean worker;

  private final Set<QueryRef> inFlight = new HashSet<>();
  private final Set<QueryRef> again = new HashSet<>();
  private final Map<QueryRef, Integer> failures = new HashMap<>();
  private final Set<QueryRef> retryScheduled = new HashSet<>();
  private final Set<QueryRef> reportedMissing = new HashSet<>();
  private final Set<String> reportedUnwatched = new HashSet<>();
  private boolean passRunning;
  private boolean passAgain;
  private boolean passRetryScheduled;
  private int passFailures;

  public QueryStatusVerticle(KubeSettings settings, MeterRegistry meters) {
    this.settings = settings;
    this.meters = meters;
  }

  @Override
  public Future<?> start() {
    executor = vertx.createSharedWorkerExecutor("ark-broker-kube", settings.apiThreads());
    return blocking(() -> ClusterAccess.decide(settings)).compose(decision -> {
      if (!decision.on()) {
        LOG.info("Query status is off: {}", decision.reason());
        return Future.succeededFuture();
      }
      return blocking(() -> new QueryApi(decision.config())).map(opened -> {
        api = opened;
        namespaces = settings.namespaces().isEmpty() ? Set.of(api.ownNamespace()) : Set.copyOf(settings.namespaces());
        registerMeters();
        EventBus bus = vertx.eventBus();
        bus.<QuestionChange>localConsumer(Addresses.QUESTIONS_CHANGED, m -> onChange(m.body().question()));
        WorkerRole.follow(bus, this::workerRole);
        vertx.setPeriodic(settings.resync().toMillis(), id -> fullPass());
        LOG.info("Query status is on, configured from {}: API server {}, Queries in {}", decision.reason(),
            api.apiServer(), namespaces.contains(KubeSettings.ALL_NAMESPACES) ? "every namespace" : "namespaces " + namespaces);
        return opened;
      });
    });
  }

  @Override
  public Future<?> stop() {
    if (api == null) {
      return executor.close();
    }
    return blocking(() -> {
      api.close();
      return null;
    }).eventually(executor::close);
  }

  private void workerRole(boolean active) {
    if (active == worker) {
      return;
    }
    worker = active;
    if (active) {
      LOG.info("This replica is the worker: reconciling every Query's status");
      failures.clear();
      passFailures = 0;
      fullPass();
    } else {
      LOG.info("This replica is no longer the worker: leaving Query status to the new one");
    }
  }

  private void onChange(Question question) {
    if (question.query() == null) {
      return;
    }
    pending.apply(question);
    if (rebuilding != null) {
      rebuilding.apply(question);
    }
    if (indexComplete) {
      reconcile(question.query());
    }
  }

  // ---- full pass: every Query the view names, and every Query that shows a question ----

  private void fullPass() {
    if (!worker) {
      return;
    }
    if (passRunning) {
      passAgain = true;
      return;
    }
    passRunning = true;
    PendingQuestions fresh = new PendingQuestions();
    rebuilding = fresh;
    listPending(fresh, null).compose(listed -> {
      pending = fresh;
      rebuilding = null;
      indexComplete = true;
      pending.queries().forEach(this::reconcile);
      return blocking(this::queriesShowingAQuestion);
    }).onComplete(done -> {
      rebuilding = null;
      passRunning = false;
      if (done.failed()) {
        passFailed(done.cause());
        return;
      }
      if (passFailures > 0) {
        LOG.info("Full Query status pass succeeded after {} failed attempts", passFailures);
        passFailures = 0;
      }
      done.result().stream().map(QueryState::ref).filter(ref -> pending.of(ref).isEmpty()).forEach(this::reconcile);
      if (passAgain) {
        passAgain = false;
        fullPass();
      }
    });
  }

  private Future<Void> listPending(PendingQuestions into, String continueToken) {
    return vertx.eventBus().<QuestionPage>request(Addresses.QUESTIONS_LIST, new ListQuestions(PENDING, PAGE, continueToken))
        .compose(reply -> {
          QuestionPage page = reply.body();
          page.items().forEach(into::apply);
          return page.continueToken() == null ? Future.succeededFuture() : listPending(into, page.continueToken());
        });
  }

  private List<QueryState> queriesShowingAQuestion() {
    List<QueryState> found = new ArrayList<>();
    for (String namespace : namespaces) {
      found.addAll(api.listShowingAQuestion(namespace));
    }
    return found;
  }

  private void passFailed(Throwable failure) {
    passFailures++;
    if (passFailures == 1) {
      LOG.warn("Full Query status pass failed ({}); retrying with backoff", describe(failure));
    } else {
      LOG.debug("Full Query status pass failed again (attempt {}): {}", passFailures, describe(failure));
    }
    if (!passRetryScheduled) {
      passRetryScheduled = true;
      vertx.setTimer(settings.retryDelay(passFailures).toMillis(), id -> {
        passRetryScheduled = false;
        fullPass();
      });
    }
  }

  // ---- one Query ----

  /** Brings one Query's status in line with the view; one at a time per Query, again if asked meanwhile. */
  private void reconcile(QueryRef ref) {
    if (!worker) {
      return;
    }
    if (!inScope(ref)) {
      count(Outcome.UNWATCHED);
      if (reportedUnwatched.add(ref.namespace())) {
        LOG.warn("Questions name Query {} in namespace {}, which this broker does not manage (kube.namespaces);"
            + " its status is left alone", ref, ref.namespace());
      }
      return;
    }
    if (!inFlight.add(ref)) {
      again.add(ref);
      return;
    }
    reconcileNow(ref).onComplete(done -> {
      inFlight.remove(ref);
      if (done.succeeded()) {
        settled(ref, done.result());
      } else {
        failed(ref, done.cause());
      }
      if (again.remove(ref)) {
        reconcile(ref);
      }
    });
  }

  private Future<Outcome> reconcileNow(QueryRef ref) {
    return blocking(() -> api.get(ref)).compose(state -> {
      if (state == null) {
        return Future.succeededFuture(Outcome.MISSING);
      }
      if (state.isTerminal()) {
        return Future.succeededFuture(Outcome.TERMINAL);
      }
      List<Question> waitingOn = pending.of(ref);
      Future<Optional<StatusPatch>> wanted = waitingOn.isEmpty()
          ? releaseIfSettled(state) : Future.succeededFuture(StatusPatch.waitingFor(state, waitingOn));
      // A replica that lost the worker role meanwhile leaves the patch to the new worker.
      return wanted.compose(patch -> patch.isPresent() && worker ? apply(ref, patch.get())
          : Future.succeededFuture(Outcome.UNCHANGED));
    });
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
    return vertx.eventBus().<Question>request(Addresses.QUESTIONS_GET, new GetQuestion(shown))
        .map(reply -> {
          Question question = reply.body();
          return question.isPending() || !state.ref().equals(question.query())
              ? Optional.<StatusPatch>empty() : StatusPatch.released(state);
        })
        .recover(failure -> Failures.codeOf(failure) == Failures.NOT_FOUND
            ? Future.succeededFuture(Optional.empty()) : Future.failedFuture(failure));
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
    if (attempts == 1 && !isConflict(failure)) {
      LOG.warn("Query {} status could not be reconciled ({}); retrying with backoff", ref, describe(failure));
    } else {
      LOG.debug("Query {} status not reconciled yet (attempt {}): {}", ref, attempts, describe(failure));
    }
    if (retryScheduled.add(ref)) {
      vertx.setTimer(settings.retryDelay(attempts).toMillis(), id -> {
        retryScheduled.remove(ref);
        reconcile(ref);
      });
    }
  }

  private boolean inScope(QueryRef ref) {
    return namespaces.contains(KubeSettings.ALL_NAMESPACES) || namespaces.contains(ref.namespace());
  }

  /** The Query changed between read and patch (its controller wrote it): normal, read again. */
  private static boolean isConflict(Throwable failure) {
    return failure instanceof KubernetesClientException e && e.getCode() == HttpURLConnection.HTTP_CONFLICT;
  }

  private static String describe(Throwable failure) {
    if (failure instanceof KubernetesClientException e && e.getCode() > 0) {
      String reason = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : "";
      return "Kubernetes API answered " + e.getCode() + (reason.isEmpty() ? "" : ": " + reason);
    }
    // No answer from the API server: the innermost cause says why (unknown host, refused, timed out).
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
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
