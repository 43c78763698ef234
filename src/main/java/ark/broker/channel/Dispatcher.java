package ark.broker.channel;

import ark.broker.auth.Actor;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.QuestionStore;
import ark.broker.bus.StoreFailure;
import ark.broker.bus.StoreFailure.Reason;
import ark.broker.question.Delivery;
import ark.broker.question.EventType;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionStatus;
import ark.broker.reconcile.Backoff;
import ark.broker.reconcile.KeyedWorkQueue;
import ark.broker.reconcile.PeriodicPass;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Delivers questions to their destinations, on the worker only. Level-triggered: it looks at each
 * question as the store has it ("pending, and no record of a Slack post yet"), when it becomes the
 * worker, after every change and in a full pass every {@code channels.resyncSeconds}, so a new worker
 * finishes what the last one left and the recorded deliveries keep anyone from posting twice. Each
 * destination has its own ordered queue, so one that is down or rate-limited holds up only itself.
 *
 * <p>The one gap a record cannot close is a crash between a post and its record. So a post is made
 * without looking first only when this process saw the question created while it was the worker and
 * has no earlier attempt that may have gone through; otherwise the channel first looks for its earlier
 * post (by the question id it put there). Outcomes are treated the same way.
 */
final class Dispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
  /** Bounds the memory of what this worker saw happen; forgetting only costs a look before a post. */
  private static final int REMEMBERED = 100_000;

  private final Vertx vertx;
  private final QuestionStore store;
  private final Destinations destinations;
  private final Backoff backoff;
  private final Clock clock;
  private final PeriodicPass scan;
  private final Map<String, KeyedWorkQueue<Job>> queues = new HashMap<>();
  /** The status each question had when this worker saw it change into it. */
  private final Map<String, QuestionStatus> seenLive = bounded();
  /** Reminders and escalations this worker saw happen ("id step"): shown without looking first. */
  private final Map<String, Boolean> followUpsSeenLive = bounded();
  /** Attempts whose result is unknown (timeout, 5xx): the next one looks before it posts. */
  private final Map<String, Boolean> unsure = bounded();
  /** Posts made but not yet recorded (the store failed): recorded before anything else is tried. */
  private final Map<String, Delivery> unrecorded = new HashMap<>();
  /** Work a channel refused for good, by question status: not tried again until the next activation. */
  private final Map<String, Boolean> refused = bounded();

  /** One question's work for one destination; the destination's queue runs them one at a time, oldest first. */
  private record Job(String questionId, Destination destination) {
  }

  Dispatcher(Vertx vertx, QuestionStore store, Destinations destinations, Backoff backoff, long resyncMillis, Clock clock) {
    this.vertx = vertx;
    this.store = store;
    this.destinations = destinations;
    this.backoff = backoff;
    this.clock = clock;
    this.scan = new PeriodicPass(vertx, "Channel delivery pass", resyncMillis, backoff,
        () -> store.forEach(Actor.BROKER, QuestionFilter.ALL, question -> consider(question, destinations.of(question))));
  }

  /** This process became the worker: go through every question, then follow the changes. */
  void activate() {
    if (!scan.isActive()) {
      LOG.info("Channels: this broker is the worker now; checking every question for deliveries due");
      scan.setActive(true);
    }
  }

  /** This process is no longer the worker: drop the waiting work (the next worker finds it again). */
  void deactivate() {
    if (scan.isActive()) {
      dropWork();
      LOG.info("Channels: this broker is no longer the worker; deliveries stopped here");
    }
  }

  /** Stops without a word: the broker is shutting down. */
  void stop() {
    dropWork();
    scan.stop();
  }

  private void dropWork() {
    scan.setActive(false);
    queues.values().forEach(KeyedWorkQueue::stop);
    queues.clear();
    seenLive.clear();
    followUpsSeenLive.clear();
    unsure.clear();
    refused.clear();
  }

  void onChange(QuestionChange change) {
    // A question removed after its retention was settled long ago: nothing is left to show anywhere.
    if (!scan.isActive() || change.type() == EventType.REMOVED) {
      return;
    }
    Question question = change.question();
    if (change.type() == EventType.CREATED) {
      List<String> unserved = destinations.unserved(question);
      if (!unserved.isEmpty()) {
        LOG.warn("Question {} names channels {} that no enabled channel serves or that reach none of its recipients; it stays answerable over REST",
            question.id(), unserved);
      }
    }
    List<Destination> places = destinations.of(question);
    if (!places.isEmpty() && change.type() != EventType.DELIVERED) {
      seenLive.put(question.id(), question.outcome().status());
    }
    if (!places.isEmpty() && (change.type() == EventType.REMINDED || change.type() == EventType.ESCALATED)) {
      followUpsSeenLive.put(question.id() + " " + change.type(), true);
    }
    consider(question, places);
  }

  private void consider(Question question, List<Destination> places) {
    for (Destination destination : places) {
      if (scan.isActive() && isDue(question, destination)
          && !refused.containsKey(jobKey(question, destination) + " " + question.outcome().status())) {
        queues.computeIfAbsent(destination.key(), key -> newQueue(destination)).offer(new Job(question.id(), destination));
      }
    }
  }

  private KeyedWorkQueue<Job> newQueue(Destination destination) {
    KeyedWorkQueue<Job> queue = new KeyedWorkQueue<>(vertx, 1, true, destination.channel().intervalMillis(),
        DeliveryFailure.retries(backoff), this::deliver);
    return queue.onIdle(() -> queues.remove(destination.key(), queue));
  }

  private boolean isDue(Question question, Destination destination) {
    Delivery record = Destinations.recordOf(question, destination);
    if (record == null) {
      return question.isPending() || destination.channel().sendsFinished(question, clock.instant());
    }
    return question.outcome().status().isFinal() && record.outcome() != question.outcome().status() || record.followUpOwed(question) != null;
  }

  /** One destination's work for one question, decided on the question as the store has it now. */
  private Future<Void> deliver(Job job) {
    return fromStore(store.get(Actor.BROKER, job.questionId()))
        .compose(question -> deliver(question, job.destination())
            .onFailure(failure -> reportFailure(question, job.destination(), failure)));
  }

  private Future<Void> deliver(Question question, Destination destination) {
    String job = jobKey(question, destination);
    if (Destinations.recordOf(question, destination) != null || !isDue(question, destination)) {
      return showFollowUpIfDue(question, destination);
    }
    Delivery made = unrecorded.get(job);
    Future<Delivery> delivery = made != null ? Future.succeededFuture(made) : findOrPost(question, destination, job);
    return delivery.compose(posted -> {
      Delivery covering = posted.coveringFollowUpsOf(question, clock.instant().truncatedTo(ChronoUnit.MILLIS));
      unrecorded.put(job, covering);
      return record(question.id(), covering);
    }).compose(recorded -> {
      unrecorded.remove(job);
      unsure.remove(job);
      LOG.info("Question {} delivered to {} ({})", question.id(), destination.label(),
          Destinations.recordOf(recorded, destination).ref());
      return showFollowUpIfDue(recorded, destination);
    });
  }

  private Future<Delivery> findOrPost(Question question, Destination destination, String job) {
    boolean look = unsure.containsKey(job) || seenLive.get(question.id()) != QuestionStatus.PENDING;
    Future<Delivery> found = look ? destination.channel().findPost(question, destination) : Future.succeededFuture();
    return found.compose(earlier -> {
      if (earlier != null) {
        LOG.info("Question {} was already posted to {} ({}) before its delivery was recorded; recording it instead of posting again",
            question.id(), destination.label(), earlier.ref());
        return Future.succeededFuture(earlier);
      }
      return destination.channel().post(question, destination).onFailure(failure -> noteUnsure(job, failure));
    });
  }

  /** A reminder or escalation people there have not heard of yet, one at a time, then the outcome if due. */
  private Future<Void> showFollowUpIfDue(Question question, Destination destination) {
    Delivery posted = Destinations.recordOf(question, destination);
    EventType step = posted == null ? null : posted.followUpOwed(question);
    if (step == null) {
      return showOutcomeIfDue(question, destination);
    }
    String job = jobKey(question, destination) + " " + step;
    boolean look = unsure.containsKey(job) || !followUpsSeenLive.containsKey(question.id() + " " + step);
    return destination.channel().showFollowUp(question, destination, posted, step, look)
        .onFailure(failure -> noteUnsure(job, failure))
        .compose(shown -> record(question.id(), posted.following(step, clock.instant().truncatedTo(ChronoUnit.MILLIS)))
            .onFailure(notRecorded -> unsure.put(job, true)))
        .compose(recorded -> {
          unsure.remove(job);
          LOG.info("Question {}: {} shown on {}", question.id(), step == EventType.REMINDED ? "reminder" : "escalation",
              destination.label());
          return showFollowUpIfDue(recorded, destination);
        });
  }

  private Future<Void> showOutcomeIfDue(Question question, Destination destination) {
    Delivery posted = Destinations.recordOf(question, destination);
    if (posted == null || question.isPending() || posted.outcome() == question.outcome().status()) {
      return Future.succeededFuture();
    }
    String job = jobKey(question, destination) + " " + question.outcome().status();
    boolean look = unsure.containsKey(job) || seenLive.get(question.id()) != question.outcome().status();
    return destination.channel().showOutcome(question, destination, posted, look)
        .onFailure(failure -> noteUnsure(job, failure))
        .compose(shown -> record(question.id(), posted.showing(question.outcome().status(), clock.instant().truncatedTo(ChronoUnit.MILLIS)))
            // Shown but not recorded: the next attempt must look before it shows it again.
            .onFailure(notRecorded -> unsure.put(job, true)))
        .map(recorded -> {
          unsure.remove(job);
          LOG.info("Question {}: {} shown on {}", question.id(), question.outcome().status().wireName(), destination.label());
          return null;
        });
  }

  private Future<Question> record(String questionId, Delivery delivery) {
    return fromStore(store.recordDelivery(Actor.BROKER, questionId, delivery));
  }

  /** The store not answering is worth waiting for; a question it does not know is not. */
  private static <T> Future<T> fromStore(Future<T> call) {
    return call.recover(failure -> {
      Reason reason = StoreFailure.of(failure).reason();
      return Future.failedFuture(new DeliveryFailure("the store refused: " + failure.getMessage(),
          reason == Reason.UNAVAILABLE || reason == Reason.INTERNAL, -1, false));
    });
  }

  private void noteUnsure(String job, Throwable failure) {
    if (failure instanceof DeliveryFailure delivery && delivery.mayHaveTakenEffect) {
      unsure.put(job, true);
    }
  }

  private void reportFailure(Question question, Destination destination, Throwable failure) {
    if (!scan.isActive()) {
      return; // stopped meanwhile: whatever failed is the next worker's to do
    }
    if (failure instanceof DeliveryFailure delivery && delivery.retryable) {
      LOG.warn("Question {} not delivered to {} yet: {}; will retry", question.id(), destination.label(), failure.getMessage());
    } else if (failure instanceof DeliveryFailure) {
      LOG.warn("Question {} cannot be delivered to {}: {}; not retrying until this broker next becomes the worker",
          question.id(), destination.label(), failure.getMessage());
      refused.put(jobKey(question, destination) + " " + question.outcome().status(), true);
    } else {
      LOG.error("Question {}: delivery to {} failed unexpectedly", question.id(), destination.label(), failure);
    }
  }

  private static String jobKey(Question question, Destination destination) {
    return question.id() + " " + destination.key();
  }

  private static <V> Map<String, V> bounded() {
    return new LinkedHashMap<>(16, 0.75f, false) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > REMEMBERED;
      }
    };
  }
}
