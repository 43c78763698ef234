package ark.broker.store;

import ark.broker.access.QuestionAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.McpSessionStore;
import ark.broker.bus.Messages.Changes;
import ark.broker.bus.Messages.Created;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.Messages.StoreStatus;
import ark.broker.bus.QuestionRetention;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoreFailure;
import ark.broker.bus.WorkerRole;
import ark.broker.log.EventLog;
import ark.broker.log.LogBackedView;
import ark.broker.log.LogUnavailableException;
import ark.broker.log.RecordCodec;
import ark.broker.logging.RequestLines;
import ark.broker.question.Attribution;
import ark.broker.question.Delivery;
import ark.broker.question.EscalationRule;
import ark.broker.question.EventType;
import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionAction;
import ark.broker.question.QuestionEvent;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionIds;
import ark.broker.question.QuestionOrder;
import ark.broker.question.QuestionPage;
import ark.broker.question.QuestionStatus;
import ark.broker.question.Reply;
import ark.broker.reconcile.Backoff;
import ark.broker.reconcile.PeriodicPass;
import ark.broker.wire.QuestionJson;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.UnaryOperator;

/**
 * The only writer. Turns commands into events, appends them to the log, and learns the outcome the
 * way every replica does: by applying what comes back from the log to its view. Replies once the
 * write is durable and applied, then publishes the change. Everything else reads through it.
 */
public final class StoreVerticle extends VerticleBase implements QuestionStore {
  private static final Logger LOG = LoggerFactory.getLogger(StoreVerticle.class);
  /** A line per create, answer and cancel: off unless {@code log.requests} is on. */
  private static final Logger REQUESTS = RequestLines.logger();
  /** A write that lost a race against another replica is decided again on the new state, this often. */
  private static final int MAX_ATTEMPTS = 5;
  private static final int FOLLOW_UP_BATCH = 1000;
  /** Removals a pass starts at most, so a backlog (a retention just shortened) is worked off without a flood. */
  private static final int RETENTION_BATCH = 1000;

  private final EventLog log;
  private final Clock clock;
  private final MeterRegistry meters;
  private final StoreSettings settings;
  private final CreateAdmission admission;
  private final List<EscalationRule> escalationRules;
  private final QuestionRetention retention;
  private final RetentionLog retentionLog;
  private final QuestionView view = new QuestionView();
  private final ChangeHistory history;
  private final KeyedSequencer sequencer = new KeyedSequencer();
  private final AtomicLongArray countsByStatus = new AtomicLongArray(QuestionStatus.values().length);
  private final AtomicLong removedKept = new AtomicLong();
  private LogBackedView<QuestionEvent, QuestionView.Result> questions;
  /** Follow-ups (reminders, escalations, timeouts) and repairs are once-only work: only the worker replica does them. */
  private PeriodicPass upkeep;
  /** Asked for the store's status: the session log's health is part of it. */
  private McpSessionStore sessions;

  /**
   * @param escalationRules what questions that bring no {@code escalation} get, first match wins
   * @param retention how long settled questions, and the audit trail of them, are kept
   */
  public StoreVerticle(EventLog log, Clock clock, MeterRegistry meters, StoreSettings settings, Budgets budgets,
                       List<EscalationRule> escalationRules, QuestionRetention retention) {
    this.log = log;
    this.clock = clock;
    this.meters = meters;
    this.settings = settings;
    this.admission = new CreateAdmission(budgets, clock);
    this.escalationRules = List.copyOf(escalationRules);
    this.retention = retention;
    this.retentionLog = new RetentionLog(clock, retention);
    this.history = new ChangeHistory(settings.watchHistory());
  }

  @Override
  public Future<?> start() {
    registerMeters();
    sessions = Addresses.MCP_SESSION_STORE.client(vertx.eventBus(), Math.max(1, settings.requestTimeoutMillis() / 2));
    questions = new LogBackedView<>(vertx, log, "questions",
        RecordCodec.json(QuestionJson.logReader(QuestionEvent.class), QuestionJson.LOG_WRITER), QuestionEvent::restated,
        settings.snapshotEveryEvents(), settings.readBackTimeoutMillis(), meters);
    return questions.open(new LogBackedView.Updates<>() {
      @Override
      public QuestionView.Result apply(long position, QuestionEvent event) {
        return onEvent(position, event);
      }

      @Override
      public QuestionEvent ended(String key) {
        return QuestionEvent.forgotten(key, null);
      }

      @Override
      public LogBackedView.Snapshot<QuestionEvent> snapshot(long position) {
        return restated(position, QuestionEvent::withVersionFromPosition);
      }

      /** Each question's version is its record's position in the new log: the versions of this one mean nothing there. */
      @Override
      public LogBackedView.Snapshot<QuestionEvent> restatedElsewhere(long position) {
        return restated(position, QuestionEvent::withVersionFromPosition);
      }

      private LogBackedView.Snapshot<QuestionEvent> restated(long position, UnaryOperator<QuestionEvent> versioned) {
        List<LogBackedView.Restatement<QuestionEvent>> entries = new ArrayList<>(view.size() + view.allRemoved().size());
        view.all().forEach(question -> entries.add(new LogBackedView.Restatement<>(question.resourceVersion(), question.id(),
            versioned.apply(QuestionEvent.restating(question)))));
        view.allRemoved().forEach(removed -> entries.add(new LogBackedView.Restatement<>(removed.resourceVersion(),
            removed.id(), versioned.apply(QuestionEvent.restatingRemoved(removed)))));
        return new LogBackedView.Snapshot<>(position, entries);
      }
    }).map(replayed -> {
      mirrorCounts();
      EventBus bus = vertx.eventBus();
      Addresses.QUESTION_STORE.serve(bus, this);
      upkeep = new PeriodicPass(vertx, "Follow-up and repair pass", settings.expiryCheckMillis(),
          new Backoff(settings.expiryCheckMillis(), settings.expiryCheckMillis()), () -> {
            followUpsDue();
            restateMisstated();
            removeAged();
            return Future.succeededFuture();
          });
      WorkerRole.follow(bus, upkeep::setActive);
      LOG.info("Store ready: {} questions ({} pending) at resourceVersion {}", view.size(),
          view.count(QuestionStatus.PENDING), view.position());
      return null;
    });
  }

  @Override
  public Future<?> stop() {
    if (upkeep != null) {
      upkeep.stop();
    }
    return questions.close();
  }

  // ---- commands ----


  @Override
  public Future<Created> create(Actor actor, NewQuestion command) {
    NewQuestion request;
    try {
      NewQuestion allowed = QuestionAccess.create(actor, command);
      request = allowed.escalatedByDefault(EscalationRule.firstFor(escalationRules, allowed));
    } catch (RuntimeException refused) {
      return Future.failedFuture(refused);
    }
    String id = QuestionIds.forRequest(request);
    return sequencer.run(id, () -> {
      Question existing = view.get(id);
      if (existing != null) {
        return replayed(actor, request, existing);
      }
      if (view.removed(id) != null) {
        return Future.failedFuture(reused(request, view.removed(id)));
      }
      Actor asker = actor;
      StoreFailure overBudget = admission.admit(asker, request.sender() == null ? 0 : view.pendingFrom(request.sender()),
          view.pendingAskedOnBehalfBy(asker.principal().name()));
      if (overBudget != null) {
        // It may repeat a create another replica wrote a moment ago: a replay creates nothing, so it is never refused.
        return questions.catchUp().compose(caughtUp -> view.get(id) != null
            ? replayed(actor, request, view.get(id)) : Future.failedFuture(overBudget));
      }
      Question asked = request.toQuestion(id, now());
      Question question = asked.recording(new QuestionAction(EventType.CREATED, asked.createdAt(),
          actor.attribution(), null));
      return write(QuestionEvent.created(question)).onComplete(written -> admission.written(asker)).map(result -> {
        boolean created = result.effect() == QuestionView.Effect.APPLIED;
        if (!created) {
          restateLater(id);
        }
        if (created) {
          REQUESTS.info("Question {} created for {} by {}{}", id, question.asked().recipient(),
              question.asked().sender() == null ? "an unnamed asker" : question.asked().sender(), actor.logSuffix());
        }
        return new Created(result.current(), created);
      });
    });
  }

  /**
   * A create that names an existing question (its idempotency key or tool call): the same request gets the
   * question back; a different one is refused, as the IETF Idempotency-Key draft says, rather than handing the
   * caller an answer to a question it did not ask.
   */
  private static Future<Created> replayed(Actor actor, NewQuestion request, Question existing) {
    if (!request.isSameRequestAs(existing)) {
      return Future.failedFuture(new StoreFailure(StoreFailure.Reason.UNPROCESSABLE, "question " + existing.id()
          + " was already created with this " + (request.idempotencyKey() != null ? "idempotency key" : "query and toolCallId")
          + " and different content; use a new key for a new question"));
    }
    return read(() -> new Created(QuestionAccess.requireVisible(actor, existing), false));
  }

  /** A create whose key names a question removed after its retention: asking again would lose what it recorded. */
  private StoreFailure reused(NewQuestion request, Question removed) {
    return new StoreFailure(StoreFailure.Reason.CONFLICT, retention.whyRemoved(removed) + "; this "
        + (request.idempotencyKey() != null ? "idempotency key" : "query and toolCallId")
        + " named it, so use a new one for a new question");
  }

  @Override
  public Future<Question> answer(Actor actor, String id, Reply reply, String answeredBy) {
    return change(id, EventType.ANSWERED, actor, null, question -> question.answer(reply,
        QuestionAccess.answeredBy(actor, question, answeredBy), now()))
        .onSuccess(answered -> REQUESTS.info("Question {} {}{}{}", answered.id(),
            answered.outcome().decision() == null ? "answered" : answered.outcome().decision().action().wireName(),
            answered.outcome().answeredBy() == null ? "" : " by " + answered.outcome().answeredBy(), actor.logSuffix()));
  }

  @Override
  public Future<Question> cancel(Actor actor, String id, String reason) {
    return change(id, EventType.CANCELLED, actor, reason, question -> {
      QuestionAccess.requireMayCancel(actor, question);
      return question.cancel(now());
    })
        .onSuccess(cancelled -> REQUESTS.info("Question {} cancelled{}", cancelled.id(), actor.logSuffix()));
  }

  @Override
  public Future<Question> recordDelivery(Actor actor, String id, Delivery delivery) {
    return change(id, EventType.DELIVERED, actor, null, question -> {
      QuestionAccess.requireVisible(actor, question);
      return question.withDelivery(delivery, now());
    });
  }

  /**
   * Reminders, escalations and timeouts that have come, one step per question and pass. Decided again on the
   * question as it is when the write is made, so a step another replica already took is not taken twice.
   */
  private void followUpsDue() {
    for (Question due : view.dueForFollowUp(now(), FOLLOW_UP_BATCH)) {
      EventType step = due.followUpDue(now());
      if (step == null || sequencer.isBusy(due.id())) {
        continue;
      }
      change(due.id(), step, Actor.BROKER, FollowUpReasons.of(step, due),
          question -> question.followUpDue(now()) == step ? question.followUp(now(), Actor.BROKER.principal().name()) : question)
          .onSuccess(after -> LOG.info("Question {} {}", after.id(), FollowUpReasons.logged(step, after)))
          .onFailure(failure -> LOG.debug("Question {}: {} not done: {}", due.id(), step.wireName(), failure.getMessage()));
    }
  }

  /**
   * Decides a change on the current state and writes it; if another replica's write got into the log
   * first, decides again on the new state, which usually means a conflict for the caller.
   *
   * @param reason why, as the actor said it (a declined question's reason), for the history; or null
   */
  private Future<Question> change(String id, EventType type, Actor actor, String reason, UnaryOperator<Question> decide) {
    return known(actor, id).compose(found -> sequencer.run(id, () -> attempt(id, type, actor.attribution(), reason, decide, 1)));
  }

  /**
   * The question, if this replica's view has it or once it has caught up with the log: a question
   * that another replica created and acknowledged a moment ago is found here too. One removed after its retention
   * is gone (410, saying why) for whoever could see it; any other is not found (404).
   */
  private Future<Question> known(Actor actor, String id) {
    Question question = view.get(id);
    if (question != null) {
      return Future.succeededFuture(question);
    }
    Future<Void> caughtUp = view.removed(id) != null ? Future.succeededFuture() : questions.catchUp();
    return caughtUp.transform(caughtUpOrNot -> {
      Question now = view.get(id);
      if (now != null) {
        return Future.succeededFuture(now);
      }
      Question removed = view.removed(id);
      return Future.failedFuture(removed != null && QuestionAccess.maySee(actor, removed)
          ? new StoreFailure(StoreFailure.Reason.GONE, retention.whyRemoved(removed))
          : new StoreFailure(StoreFailure.Reason.NOT_FOUND, retention.whyNotFound(id)));
    });
  }

  private Future<Question> attempt(String id, EventType type, Attribution by, String reason,
                                   UnaryOperator<Question> decide, int attempt) {
    Question before = view.require(id);
    Question decided = decide.apply(before);
    // A decision that changes nothing hands back the very question it was given.
    @SuppressWarnings("ReferenceEquality")
    boolean unchanged = decided == before;
    if (unchanged) {
      return Future.succeededFuture(before);
    }
    Question after = decided.recording(new QuestionAction(type, decided.updatedAt(), by, reason));
    return write(QuestionEvent.changed(type, before, after)).compose(result -> {
      if (result.effect() == QuestionView.Effect.APPLIED) {
        return Future.succeededFuture(result.current());
      }
      restateLater(id);
      if (attempt == MAX_ATTEMPTS) {
        return Future.failedFuture(new LogUnavailableException("question " + id + " kept changing under this write", null));
      }
      return attempt(id, type, by, reason, decide, attempt + 1);
    });
  }

  /** Repairs, on the worker, what writers that lost a race and then died did not restate. */
  private void restateMisstated() {
    for (String id : List.copyOf(view.misstated())) {
      if (!sequencer.isBusy(id)) {
        restateLater(id);
      }
    }
  }

  /**
   * Appends the question's state again if its newest record lost a race, once the writes queued for it
   * are done: a compacted log keeps only the newest record of a question, and must keep the winner's (a removed
   * question's too: what the audit trail keeps of it).
   */
  private void restateLater(String id) {
    sequencer.run(id, () -> {
      Question current = view.get(id);
      Question removed = view.removed(id);
      if (current == null && removed == null || !view.misstated().contains(id)) {
        return Future.succeededFuture();
      }
      return write(current != null ? QuestionEvent.restating(current) : QuestionEvent.restatingRemoved(removed))
          .onSuccess(result -> {
            if (result.effect() == QuestionView.Effect.CONFIRMED) {
              LOG.info("Question {} restated at resourceVersion {}: a write to it had lost a race", id,
                  (current != null ? current : removed).resourceVersion());
            }
          });
    }).onFailure(failure -> LOG.debug("Question {} could not be restated yet: {}", id, failure.getMessage()));
  }

  private Future<QuestionView.Result> write(QuestionEvent event) {
    return questions.append(event.question().id(), event);
  }

  /**
   * On the worker: settled questions whose retention ended leave the API, kept for the audit trail as they were; and
   * those the audit trail has kept for its own retention are forgotten (a tombstone on Kafka, a record the next
   * snapshot leaves out on the file log). Level-triggered from the view, so a new worker finishes what the last left.
   * Each is decided again on the question as it is when written: one that changed meanwhile is not removed.
   */
  private void removeAged() {
    if (retention.keepsForever()) {
      return;
    }
    Instant now = now();
    Instant settledBefore = now.minus(retention.settledQuestions());
    for (Question due : view.settledBefore(settledBefore, RETENTION_BATCH)) {
      if (!sequencer.isBusy(due.id())) {
        sequencer.run(due.id(), () -> {
          Question current = view.get(due.id());
          if (current == null || current.isPending() || !current.updatedAt().isBefore(settledBefore)) {
            return Future.succeededFuture();
          }
          return write(QuestionEvent.removed(current, now)).onSuccess(result -> retentionLog.removed(result.effect()));
        }).onFailure(failure -> LOG.debug("Question {} not removed yet: {}", due.id(), failure.getMessage()));
      }
    }
    for (Question kept : view.removedBefore(now.minus(retention.auditTrail()), RETENTION_BATCH)) {
      if (!sequencer.isBusy(kept.id())) {
        sequencer.run(kept.id(), () -> view.removed(kept.id()) == null ? Future.succeededFuture()
            : questions.remove(kept.id(), QuestionEvent.forgotten(kept.id(), now))
                .onSuccess(result -> retentionLog.forgotten(result.effect())))
            .onFailure(failure -> LOG.debug("Question {} not forgotten yet: {}", kept.id(), failure.getMessage()));
      }
    }
  }

  /** Milliseconds are what clients and the Kubernetes API keep; finer digits would only differ between them. */
  private java.time.Instant now() {
    return clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
  }

  // ---- applying the log ----

  private QuestionView.Result onEvent(long position, QuestionEvent event) {
    QuestionView.Result result = view.apply(event, position);
    if (result.effect() == QuestionView.Effect.DROPPED && questions.isLive()) {
      mirrorCounts();
    }
    if (result.effect() == QuestionView.Effect.APPLIED) {
      if (event.type() == EventType.CREATED && !event.restated()) {
        // Whichever replica admitted it: the minute's budgets hold for all of them together.
        admission.created(createdBy(result.current()), result.current().createdAt());
      }
      if (event.restated()) {
        history.compactedUpTo(position);
      } else {
        // A question that leaves the API is removed for its watchers, whether the audit trail keeps it or not.
        EventType type = event.type() == EventType.FORGOTTEN ? EventType.REMOVED : event.type();
        QuestionChange change = new QuestionChange(type, result.current());
        history.add(change);
        if (questions.isLive()) {
          mirrorCounts();
          vertx.eventBus().publish(Addresses.QUESTIONS_CHANGED, change);
        }
      }
    }
    return result;
  }

  // ---- reads ----

  /** Who asked the question, as its history records it; null for a question written before histories were kept. */
  private static Attribution createdBy(Question question) {
    return question.history().stream().filter(action -> action.type() == EventType.CREATED).findFirst()
        .map(QuestionAction::by).orElse(null);
  }

  @Override
  public Future<Question> get(Actor actor, String id) {
    return known(actor, id).map(question -> QuestionAccess.requireVisible(actor, question));
  }

  @Override
  public Future<Question> audited(Actor actor, String id) {
    return known(actor, id).recover(failure -> {
      Question removed = view.removed(id);
      return removed != null && actor.effective().isAdmin() ? Future.succeededFuture(removed) : Future.failedFuture(failure);
    }).map(question -> QuestionAccess.requireVisible(actor, question));
  }

  @Override
  public Future<QuestionPage> removedKept(Actor actor, int limit, String continueToken) {
    if (!actor.effective().isAdmin()) {
      return Future.failedFuture(new StoreFailure(StoreFailure.Reason.FORBIDDEN, "only admins may read the audit trail"));
    }
    return read(() -> view.removedKept(limit, continueToken));
  }

  @Override
  public Future<QuestionPage> list(Actor actor, QuestionFilter filter, QuestionOrder order, int limit,
                                   String continueToken) {
    return read(() -> view.list(QuestionAccess.visible(actor, filter), order, limit, continueToken));
  }

  @Override
  public Future<StoreStatus> status() {
    return unwritable().map(unwritable -> new StoreStatus(view.position(), view.size(), unwritable));
  }

  /**
   * A version beyond this replica's newest change may be one another replica reached first: catch up
   * before deciding. One still beyond is none this log ever had (another broker's, or from before its data
   * was lost): like a version too old, the watcher must list again.
   */
  @Override
  public Future<Changes> changesSince(Actor actor, long after, int limit) {
    Future<Void> caughtUp = after > view.position() ? questions.catchUp() : Future.succeededFuture();
    return caughtUp.compose(ignored -> {
      if (after > view.position()) {
        return Future.failedFuture(new StoreFailure(StoreFailure.Reason.GONE, "resourceVersion " + after
            + " is newer than anything in this broker's log (its newest is " + view.position()
            + "); list again and watch from the list's resourceVersion"));
      }
      List<QuestionChange> changes = history.since(after, limit);
      return changes != null ? Future.succeededFuture(visible(actor, after, changes, limit))
          : Future.failedFuture(new StoreFailure(StoreFailure.Reason.GONE, "resourceVersion " + after
              + " is too old: changes up to " + history.completeAfter() + " are no longer retained; list again and"
              + " watch from the list's resourceVersion"));
    });
  }

  private static Changes visible(Actor actor, long after, List<QuestionChange> page, int limit) {
    long through = page.isEmpty() ? after : page.get(page.size() - 1).position();
    // Who may see what is decided once per page, not once per change.
    QuestionFilter visible = QuestionAccess.visible(actor, QuestionFilter.ALL);
    List<QuestionChange> seen = page.stream().filter(change -> visible.matches(change.question())).toList();
    return new Changes(seen, through, page.size() == limit);
  }

  private static <T> Future<T> read(java.util.function.Supplier<T> supplier) {
    try {
      return Future.succeededFuture(supplier.get());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * Why a log of this store cannot take writes now, or null: the questions log, else the session log (no
   * answer from the session store, not started or gone, counts as nothing to report).
   */
  private Future<String> unwritable() {
    String questionsLog = log.cannotWrite();
    if (questionsLog != null) {
      return Future.succeededFuture(questionsLog);
    }
    return sessions.unwritable().otherwise((String) null);
  }

  // ---- metrics ----

  private void mirrorCounts() {
    for (QuestionStatus status : QuestionStatus.values()) {
      countsByStatus.set(status.ordinal(), view.count(status));
    }
    removedKept.set(view.allRemoved().size());
  }

  private void registerMeters() {
    Gauge.builder("ark_broker_questions_removed_kept", removedKept, AtomicLong::get)
        .description("Questions removed after their retention whose audit trail is still kept")
        .register(meters);
    for (QuestionStatus status : QuestionStatus.values()) {
      Gauge.builder("ark_broker_questions", countsByStatus, counts -> counts.get(status.ordinal()))
          .description("Questions in the view, by status")
          .tag("status", status.wireName())
          .register(meters);
    }
  }
}
