package ark.broker.kube;

import ark.broker.auth.Actor;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoreFailure;
import ark.broker.kube.ApprovalTask.TaskRef;
import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionIds;
import ark.broker.question.QuestionStatus;
import ark.broker.reconcile.KeyedWorkQueue;
import ark.broker.reconcile.PeriodicPass;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.WatcherException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Ark's tool-call approvals answered through the broker. Each A2ATask that waits for an approval becomes one
 * question (kind approval, routed by {@link ApprovalRouting}); its answer is written back as ark-api
 * writes it, so Ark's controllers resume the Query; a task that stops waiting (decided elsewhere, timed out,
 * deleted) has its pending question cancelled. Level-triggered like the Query status: each task is compared with
 * its question after every change to either (a watch on A2ATasks, the store's changes) and in a periodic full
 * pass; only the worker does it. Runs on the verticle's event loop; API calls go to the worker executor.
 */
final class A2ATaskApprovals {
  private static final Logger LOG = LoggerFactory.getLogger(A2ATaskApprovals.class);

  private final Context context;
  private final WorkerExecutor executor;
  private final QuestionStore store;
  private final A2ATaskApi api;
  private final ApprovalRouting routing;
  private final Set<String> namespaces;
  private final PeriodicPass fullPasses;
  private final KeyedWorkQueue<TaskRef> tasks;

  private final PendingIndex<TaskRef> pending = new PendingIndex<>(ApprovalQuestion::taskOf);
  /** Open while this replica is the worker and the watches stand; null otherwise. */
  private List<Watch> watches;
  private final Map<TaskRef, Integer> failures = new HashMap<>();

  /** @param store acting as the broker; {@code namespaces} as the Query status manages them */
  A2ATaskApprovals(Vertx vertx, WorkerExecutor executor, QuestionStore store, A2ATaskApi api, KubeSettings settings,
                   Set<String> namespaces) {
    this.context = vertx.getOrCreateContext();
    this.executor = executor;
    this.store = store;
    this.api = api;
    this.routing = settings.approvals();
    this.namespaces = namespaces;
    this.tasks = new KeyedWorkQueue<>(vertx, settings.apiThreads(), false, 0,
        KeyedWorkQueue.RetryPolicy.always(settings.retry()), this::reconcile);
    this.fullPasses = new PeriodicPass(vertx, "Full A2ATask approvals pass", settings.resync().toMillis(),
        settings.retry(), this::fullPass);
  }

  void setActive(boolean active) {
    if (active) {
      failures.clear();
    } else {
      stopWatching();
    }
    fullPasses.setActive(active);
  }

  void onChange(Question question) {
    TaskRef task = pending.changed(question);
    if (task != null) {
      offer(task);
    }
  }

  void stop() {
    stopWatching();
  }

  private void offer(TaskRef task) {
    if (fullPasses.isActive() && (namespaces.contains(KubeSettings.ALL_NAMESPACES) || namespaces.contains(task.namespace()))) {
      tasks.offer(task);
    }
  }

  // ---- full pass: every task that waits for a decision, and every task a pending question asks about ----

  private Future<Void> fullPass() {
    return pending.rebuild(store)
        .compose(owners -> {
          owners.forEach(this::offer);
          return blocking(this::awaitingDecision);
        })
        .compose(waiting -> {
          waiting.forEach(task -> offer(task.ref()));
          return watching();
        })
        .recover(failure -> Future.failedFuture(new IllegalStateException(ApiFailures.describe(failure), failure)));
  }

  private List<ApprovalTask> awaitingDecision() {
    List<ApprovalTask> found = new ArrayList<>();
    for (String namespace : namespaces) {
      found.addAll(api.listAwaitingDecision(namespace));
    }
    return found;
  }

  /** Opens the watches unless they stand, so a new approval is asked at once rather than at the next pass. */
  private Future<Void> watching() {
    if (watches != null) {
      return Future.succeededFuture();
    }
    return blocking(() -> namespaces.stream()
        .map(namespace -> api.watch(namespace, task -> context.runOnContext(v -> offer(task)), this::watchClosed))
        .toList())
        .map(opened -> {
          watches = opened;
          if (!fullPasses.isActive()) {
            stopWatching(); // the worker role moved away while they opened
          }
          return null;
        });
  }

  private void watchClosed(WatcherException cause) {
    context.runOnContext(v -> {
      LOG.info("The watch on A2ATasks ended ({}); the next full pass opens it again", ApiFailures.describe(cause));
      stopWatching();
    });
  }

  private void stopWatching() {
    if (watches == null) {
      return;
    }
    List<Watch> closing = watches;
    watches = null;
    blocking(() -> {
      closing.forEach(Watch::close);
      return null;
    });
  }

  // ---- one task ----

  private Future<Void> reconcile(TaskRef ref) {
    if (!fullPasses.isActive()) {
      return Future.succeededFuture();
    }
    return blocking(() -> api.get(ref))
        .compose(task -> {
          boolean waits = task != null && task.awaitsDecision();
          Future<Void> settled = settle(ref, task, waits);
          return waits ? settled.compose(v -> ask(task)) : settled;
        })
        .andThen(done -> {
          if (done.succeeded()) {
            Integer failed = failures.remove(ref);
            if (failed != null) {
              LOG.info("A2ATask {} approval reconciled after {} failed attempts", ref, failed);
            }
          } else {
            int attempts = failures.merge(ref, 1, Integer::sum);
            if (attempts == 1 && !ApiFailures.isConflict(done.cause())) {
              LOG.warn("A2ATask {} approval could not be reconciled ({}); retrying with backoff", ref,
                  ApiFailures.describe(done.cause()));
            }
          }
        });
  }

  /** Cancels the pending questions about {@code ref} that no waiting task needs any more. */
  private Future<Void> settle(TaskRef ref, ApprovalTask task, boolean waits) {
    List<Future<?>> cancelled = new ArrayList<>();
    for (Question question : pending.of(ref)) {
      if (waits && ApprovalQuestion.isAbout(question, task)) {
        continue;
      }
      String why = task == null ? "it no longer exists" : !task.decision().isEmpty() ? "it was decided elsewhere"
          : "it is " + task.phase() + (waits ? " again, as a new task" : "");
      cancelled.add(store.cancel(Actor.BROKER, question.id(), null)
          .onSuccess(done -> LOG.info("Question {} cancelled: A2ATask {} no longer waits for it ({})", question.id(), ref, why))
          // Answered or settled meanwhile: nothing is left to cancel.
          .recover(failure -> StoreFailure.is(failure, StoreFailure.Reason.CONFLICT)
              ? Future.succeededFuture() : Future.failedFuture(failure)));
    }
    return Future.all(cancelled).mapEmpty();
  }

  /**
   * Asks about the task unless its question exists (found by the id its key derives), and writes the answer back
   * once there is one. A question someone cancelled or let expire leaves the decision to Ark's timeout.
   */
  private Future<Void> ask(ApprovalTask task) {
    NewQuestion request = ApprovalQuestion.of(task, routing.routeFor(task));
    return store.find(Actor.BROKER, QuestionIds.forRequest(request))
        .compose(known -> known != null ? Future.succeededFuture(known) : store.create(Actor.BROKER, request).map(created -> {
          LOG.info("A2ATask {} waits for approval of {}: asked {} (question {})", task.ref(), task.toolNames(),
              created.question().asked().recipient(), created.question().id());
          return created.question();
        }))
        .compose(question -> question.outcome().status() == QuestionStatus.ANSWERED ? writeBack(task, question)
            : Future.succeededFuture());
  }

  private Future<Void> writeBack(ApprovalTask task, Question answered) {
    String decision = ApprovalQuestion.decision(answered);
    return blocking(() -> api.writeDecision(task, decision)).map(written -> {
      if (written) {
        LOG.info("A2ATask {} {} by {} (question {})", task.ref(), decision, answered.outcome().answeredBy(), answered.id());
      }
      return null;
    });
  }

  private <T> Future<T> blocking(Callable<T> call) {
    return executor.executeBlocking(call, false);
  }
}
