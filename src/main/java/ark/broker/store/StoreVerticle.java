package ark.broker.store;

import ark.broker.bus.Addresses;
import ark.broker.bus.Failures;
import ark.broker.bus.Messages.AnswerQuestion;
import ark.broker.bus.Messages.CancelQuestion;
import ark.broker.bus.Messages.Changes;
import ark.broker.bus.Messages.ChangesSince;
import ark.broker.bus.Messages.CreateQuestion;
import ark.broker.bus.Messages.Created;
import ark.broker.bus.Messages.GetQuestion;
import ark.broker.bus.Messages.ListQuestions;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.Messages.RecordDelivery;
import ark.broker.bus.Messages.StoreStatus;
import ark.broker.bus.WorkerRole;
import ark.broker.log.EventLog;
import ark.broker.log.EventLog.LogRecord;
import ark.broker.log.LogUnavailableException;
import ark.broker.question.EventType;
import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionEvent;
import ark.broker.question.QuestionIds;
import ark.broker.question.QuestionJson;
import ark.broker.question.QuestionStatus;
import ark.broker.question.QuestionView;
import ark.broker.question.QuestionView.Outcome;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The only writer. Turns commands into events, appends them to the log, and learns the outcome the
 * way every replica does: by applying what comes back from the log to its view. Replies once the
 * write is durable and applied, then publishes the change. Everything else reads through it.
 */
public final class StoreVerticle extends VerticleBase {
  private static final Logger LOG = LoggerFactory.getLogger(StoreVerticle.class);
  /** A write that lost a race against another replica is decided again on the new state, this often. */
  private static final int MAX_ATTEMPTS = 5;
  private static final int EXPIRY_BATCH = 1000;

  private final EventLog log;
  private final Clock clock;
  private final MeterRegistry meters;
  private final StoreSettings settings;
  private final QuestionView view = new QuestionView();
  private final ChangeHistory history;
  private final KeyedSequencer sequencer = new KeyedSequencer();
  private final OwnWrites<QuestionView.Result> ownWrites = new OwnWrites<>();
  private final AtomicLongArray countsByStatus = new AtomicLongArray(QuestionStatus.values().length);
  private boolean live;
  /** Expiry is once-only work: only the worker replica does it. */
  private boolean worker;
  /** The snapshot being written, if any; one at a time. */
  private Future<Void> compaction = Future.succeededFuture();
  private long compactedUpTo;
  private Timer appendTimer;

  public StoreVerticle(EventLog log, Clock clock, MeterRegistry meters, StoreSettings settings) {
    this.log = log;
    this.clock = clock;
    this.meters = meters;
    this.settings = settings;
    this.history = new ChangeHistory(settings.watchHistory());
  }

  @Override
  public Future<?> start() {
    registerMeters();
    return log.open(new EventLog.RecordSink<QuestionEvent>() {
      @Override
      public QuestionEvent decode(long position, byte[] payload) {
        return StoreVerticle.decode(position, payload);
      }

      @Override
      public void apply(long position, QuestionEvent event) {
        onEvent(position, event);
      }
    }).map(replayed -> {
      live = true;
      compactedUpTo = history.completeAfter();
      mirrorCounts();
      EventBus bus = vertx.eventBus();
      bus.<CreateQuestion>localConsumer(Addresses.QUESTIONS_CREATE, m -> StoreReplies.respond(m, create(m.body().request(), m)));
      bus.<AnswerQuestion>localConsumer(Addresses.QUESTIONS_ANSWER, m -> StoreReplies.respond(m, answer(m.body(), m)));
      bus.<CancelQuestion>localConsumer(Addresses.QUESTIONS_CANCEL, m -> StoreReplies.respond(m, cancel(m.body(), m)));
      bus.<GetQuestion>localConsumer(Addresses.QUESTIONS_GET, m -> StoreReplies.respond(m, known(m.body().id())));
      bus.<ListQuestions>localConsumer(Addresses.QUESTIONS_LIST, m -> StoreReplies.respond(m, read(() -> view.list(
          m.body().filter(), m.body().limit(), m.body().continueToken()))));
      bus.<ChangesSince>localConsumer(Addresses.QUESTIONS_HISTORY, this::changesSince);
      bus.<RecordDelivery>localConsumer(Addresses.QUESTIONS_DELIVER, m -> StoreReplies.respond(m, deliver(m.body())));
      bus.localConsumer(Addresses.STORE_STATUS, m -> m.reply(new StoreStatus(view.position(), view.size())));
      WorkerRole.follow(bus, active -> worker = active);
      vertx.setPeriodic(settings.expiryCheckMillis(), id -> {
        if (worker) {
          expireDue();
          restateMisstated();
        }
      });
      LOG.info("Store ready: {} questions ({} pending) at resourceVersion {}", view.size(),
          view.count(QuestionStatus.PENDING), view.position());
      return replayed;
    });
  }

  @Override
  public Future<?> stop() {
    return compaction.eventually(log::close);
  }

  // ---- commands ----

  private Future<Created> create(NewQuestion request, Message<?> message) {
    String id = QuestionIds.forRequest(request);
    return sequencer.run(id, () -> {
      Question existing = view.get(id);
      if (existing != null) {
        return Future.succeededFuture(new Created(existing, false));
      }
      Question question = request.toQuestion(id, now());
      return write(QuestionEvent.created(question, nextWriter())).map(result -> {
        boolean created = result.outcome() == Outcome.APPLIED;
        if (!created) {
          restateLater(id);
        }
        if (created) {
          LOG.info("Question {} created for {} by {}{}", id, question.recipient(),
              question.sender() == null ? "an unnamed asker" : question.sender(), StoreReplies.requestSuffix(message));
        }
        return new Created(result.current(), created);
      });
    });
  }

  private Future<Question> answer(AnswerQuestion command, Message<?> message) {
    return change(command.id(), EventType.ANSWERED,
        question -> question.answer(command.response(), command.answeredBy(), now()))
        .onSuccess(answered -> LOG.info("Question {} answered{}{}", answered.id(),
            answered.answeredBy() == null ? "" : " by " + answered.answeredBy(), StoreReplies.requestSuffix(message)));
  }

  private Future<Question> cancel(CancelQuestion command, Message<?> message) {
    return change(command.id(), EventType.CANCELLED, question -> question.cancel(now()))
        .onSuccess(cancelled -> LOG.info("Question {} cancelled{}", cancelled.id(), StoreReplies.requestSuffix(message)));
  }

  private Future<Question> deliver(RecordDelivery command) {
    return change(command.id(), EventType.DELIVERED, question -> question.withDelivery(command.delivery(), now()));
  }

  private void expireDue() {
    for (Question due : view.dueToExpire(now(), EXPIRY_BATCH)) {
      if (sequencer.isBusy(due.id())) {
        continue;
      }
      change(due.id(), EventType.EXPIRED, question -> question.isDueToExpire(now())
          ? question.expire(now()) : question)
          .onSuccess(expired -> LOG.info("Question {} expired (it was due at {})", expired.id(), expired.expiresAt()))
          .onFailure(failure -> LOG.debug("Question {} was not expired: {}", due.id(), failure.getMessage()));
    }
  }

  /**
   * Decides a change on the current state and writes it; if another replica's write got into the log
   * first, decides again on the new state, which usually means a conflict for the caller.
   */
  private Future<Question> change(String id, EventType type, UnaryOperator<Question> decide) {
    return known(id).compose(found -> sequencer.run(id, () -> attempt(id, type, decide, 1)));
  }

  /**
   * The question, if this replica's view has it or once it has caught up with the log: a question
   * that another replica created and acknowledged a moment ago is found here too.
   */
  private Future<Question> known(String id) {
    Question question = view.get(id);
    if (question != null) {
      return Future.succeededFuture(question);
    }
    return log.catchUp()
        .onFailure(failure -> LOG.debug("Could not catch up with the event log to look for question {}: {}", id,
            failure.getMessage()))
        .transform(caughtUpOrNot -> read(() -> view.require(id)));
  }

  private Future<Question> attempt(String id, EventType type, UnaryOperator<Question> decide, int attempt) {
    Question before = view.require(id);
    Question after = decide.apply(before);
    if (after == before) {
      return Future.succeededFuture(before);
    }
    return write(QuestionEvent.changed(type, before, after, nextWriter())).compose(result -> {
      if (result.outcome() == Outcome.APPLIED) {
        return Future.succeededFuture(result.current());
      }
      restateLater(id);
      if (attempt == MAX_ATTEMPTS) {
        return Future.failedFuture(new LogUnavailableException("question " + id + " kept changing under this write", null));
      }
      return attempt(id, type, decide, attempt + 1);
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
   * are done: a compacted log keeps only the newest record of a question, and must keep the winner's.
   */
  private void restateLater(String id) {
    sequencer.run(id, () -> {
      Question current = view.get(id);
      if (current == null || !view.misstated().contains(id)) {
        return Future.succeededFuture();
      }
      return write(QuestionEvent.restating(current, nextWriter()))
          .onSuccess(result -> {
            if (result.outcome() == Outcome.CONFIRMED) {
              LOG.info("Question {} restated at resourceVersion {}: a write to it had lost a race", id,
                  current.resourceVersion());
            }
          });
    }).onFailure(failure -> LOG.debug("Question {} could not be restated yet: {}", id, failure.getMessage()));
  }

  private Future<QuestionView.Result> write(QuestionEvent event) {
    Timer.Sample sample = Timer.start(meters);
    Future<Long> appended = log.append(event.question().id(), encode(event))
        .onComplete(done -> sample.stop(appendTimer));
    return ReadBack.within(vertx, settings.readBackTimeoutMillis(), appended, ownWrites.await(event.writer(), appended));
  }

  /** Milliseconds are what clients and the Kubernetes API keep; finer digits would only differ between them. */
  private java.time.Instant now() {
    return clock.instant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
  }

  private String nextWriter() {
    return ownWrites.nextWriter();
  }

  // ---- applying the log ----

  private void onEvent(long position, QuestionEvent event) {
    QuestionView.Result result = view.apply(event, position);
    if (result.outcome() == Outcome.APPLIED) {
      if (event.restated()) {
        history.compactedUpTo(position);
      } else {
        QuestionChange change = new QuestionChange(event.type(), result.current());
        history.add(change);
        if (live) {
          mirrorCounts();
          vertx.eventBus().publish(Addresses.QUESTIONS_CHANGED, change);
        }
      }
    }
    if (live) {
      ownWrites.applied(event.writer(), result);
      compactIfDue();
    }
  }

  private void compactIfDue() {
    if (!compaction.isComplete() || view.position() - compactedUpTo < settings.snapshotEveryEvents()) {
      return;
    }
    long upTo = view.position();
    List<Question> state = new ArrayList<>(view.all());
    Function<Question, LogRecord> toRecord =
        question -> new LogRecord(question.resourceVersion(), question.id(), encode(QuestionEvent.restating(question)));
    compaction = log.compact(upTo, state, toRecord).onComplete(done -> {
      if (done.succeeded()) {
        compactedUpTo = upTo;
      } else {
        LOG.error("Snapshot of the event log at {} failed; will try again", upTo, done.cause());
        compactedUpTo = view.position();
      }
    });
  }

  // ---- reads ----

  private void changesSince(Message<ChangesSince> message) {
    List<QuestionChange> changes = history.since(message.body().after());
    if (changes == null) {
      message.fail(Failures.GONE, "resourceVersion " + message.body().after() + " is too old: changes up to "
          + history.completeAfter() + " are no longer retained; list again and watch from the list's resourceVersion");
    } else {
      message.reply(new Changes(changes));
    }
  }

  private static <T> Future<T> read(java.util.function.Supplier<T> supplier) {
    try {
      return Future.succeededFuture(supplier.get());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  // ---- encoding and metrics ----

  private static byte[] encode(QuestionEvent event) {
    try {
      return QuestionJson.MAPPER.writeValueAsBytes(event);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static QuestionEvent decode(long position, byte[] payload) {
    try {
      return QuestionJson.MAPPER.readValue(payload, QuestionEvent.class);
    } catch (IOException e) {
      throw new IllegalStateException("Event log record at position " + position + " is not a question event", e);
    }
  }

  private void mirrorCounts() {
    for (QuestionStatus status : QuestionStatus.values()) {
      countsByStatus.set(status.ordinal(), view.count(status));
    }
  }

  private void registerMeters() {
    for (QuestionStatus status : QuestionStatus.values()) {
      Gauge.builder("ark_broker_questions", countsByStatus, counts -> counts.get(status.ordinal()))
          .description("Questions in the view, by status")
          .tag("status", status.wireName())
          .register(meters);
    }
    appendTimer = Timer.builder("ark_broker_log_append")
        .description("Time from handing an event to the log until it is durable")
        .publishPercentileHistogram()
        .register(meters);
  }
}
