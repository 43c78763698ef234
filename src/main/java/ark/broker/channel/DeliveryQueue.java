package ark.broker.channel;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The work waiting for one destination, done one question at a time, oldest first, with the channel's
 * interval between calls. A failure that is worth retrying keeps its question at the head and pauses
 * this destination only (for the {@code Retry-After} asked, else an exponential backoff); every other
 * destination has its own queue and goes on. Runs on the verticle's event loop.
 */
final class DeliveryQueue {
  interface Work {
    Future<Void> run(String questionId, Destination destination);
  }

  private final Vertx vertx;
  private final long intervalMillis;
  private final Backoff backoff;
  private final Work work;
  private final Runnable idle;
  private final Map<String, Destination> waiting = new LinkedHashMap<>();
  private String running;
  /** The running question changed while it ran: look at it again rather than dropping it. */
  private boolean again;
  private int failures;
  private long timer = -1;
  private boolean stopped;

  /** @param idle called when the queue has nothing left to do and its interval has passed: it may be dropped */
  DeliveryQueue(Vertx vertx, long intervalMillis, Backoff backoff, Work work, Runnable idle) {
    this.vertx = vertx;
    this.intervalMillis = intervalMillis;
    this.backoff = backoff;
    this.work = work;
    this.idle = idle;
  }

  void offer(String questionId, Destination destination) {
    if (stopped) {
      return;
    }
    if (questionId.equals(running)) {
      again = true;
      return;
    }
    waiting.putIfAbsent(questionId, destination);
    pump();
  }

  void stop() {
    stopped = true;
    waiting.clear();
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void pump() {
    if (stopped || running != null || timer >= 0) {
      return;
    }
    if (waiting.isEmpty()) {
      idle.run();
      return;
    }
    Map.Entry<String, Destination> next = waiting.entrySet().iterator().next();
    String questionId = next.getKey();
    running = questionId;
    again = false;
    Future<Void> done;
    try {
      done = work.run(questionId, next.getValue());
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    done.onComplete(result -> {
      running = null;
      if (stopped) {
        return;
      }
      long pause = intervalMillis;
      if (result.failed() && result.cause() instanceof DeliveryFailure failure && failure.retryable) {
        failures++;
        pause = Math.max(pause, failure.retryAfterMillis >= 0 ? failure.retryAfterMillis : backoff.delayMillis(failures));
      } else {
        failures = 0;
        if (!again) {
          waiting.remove(questionId);
        }
      }
      pauseThenPump(pause);
    });
  }

  private void pauseThenPump(long millis) {
    timer = vertx.setTimer(Math.max(1, millis), fired -> {
      timer = -1;
      pump();
    });
  }
}
