package ark.broker.reconcile;

import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Work to do per key, as a controller's work queue does it: a key offered while it waits is queued once;
 * a key offered while it runs runs again afterwards (the newest state counts); never two runs of one
 * key at once; at most {@code concurrency} keys at a time, {@code intervalMillis} between starts and
 * from the end of a run to the next start (a run may read for a while before the call the interval
 * paces); a failure the {@link RetryPolicy} retries keeps the key waiting for its delay. An
 * {@code ordered} queue runs its keys strictly oldest first, so a key waiting to be retried holds up
 * those behind it (a destination that is down or rate-limited pauses as a whole). Used from one event
 * loop only.
 */
public final class KeyedWorkQueue<K> {

  public interface Work<K> {
    Future<Void> run(K key);
  }

  /** How long to wait before running a key again after its {@code failures}-th failure in a row; negative: drop it. */
  public interface RetryPolicy {
    long delayMillis(Throwable failure, int failures);

    /** Every failure is retried with {@code backoff}. */
    static RetryPolicy always(Backoff backoff) {
      return (failure, failures) -> backoff.delayMillis(failures);
    }
  }

  private final Vertx vertx;
  private final int concurrency;
  private final boolean ordered;
  private final long intervalMillis;
  private final RetryPolicy retry;
  private final Work<K> work;
  /** Waiting keys in the order they were offered, with the earliest time (nanoTime) each may run. */
  private final Map<K, Long> waiting = new LinkedHashMap<>();
  private final Set<K> running = new HashSet<>();
  private final Set<K> offeredWhileRunning = new HashSet<>();
  private final Map<K, Integer> failures = new HashMap<>();
  private Runnable onIdle = () -> { };
  private long nextStart;
  private long timer = -1;
  private boolean stopped;

  public KeyedWorkQueue(Vertx vertx, int concurrency, boolean ordered, long intervalMillis, RetryPolicy retry, Work<K> work) {
    if (concurrency < 1 || (ordered && concurrency != 1)) {
      throw new IllegalArgumentException("a work queue runs at least one key at a time, and an ordered one exactly one");
    }
    this.vertx = vertx;
    this.concurrency = concurrency;
    this.ordered = ordered;
    this.intervalMillis = intervalMillis;
    this.retry = retry;
    this.work = work;
    this.nextStart = System.nanoTime();
  }

  /**
   * Called whenever the queue has nothing left to do and its interval has passed since the last run:
   * its owner may drop it, and a new queue for the same keys still keeps the interval.
   */
  public KeyedWorkQueue<K> onIdle(Runnable onIdle) {
    this.onIdle = onIdle;
    return this;
  }

  public void offer(K key) {
    if (stopped) {
      return;
    }
    if (running.contains(key)) {
      offeredWhileRunning.add(key);
      return;
    }
    waiting.putIfAbsent(key, System.nanoTime());
    pump();
  }

  /** Drops every waiting key; runs under way finish, and nothing starts after them. */
  public void stop() {
    stopped = true;
    waiting.clear();
    offeredWhileRunning.clear();
    failures.clear();
    cancelTimer();
  }

  private void pump() {
    if (stopped) {
      return;
    }
    cancelTimer();
    long now = System.nanoTime();
    while (running.size() < concurrency && now - nextStart >= 0) {
      K next = nextDue(now);
      if (next == null) {
        break;
      }
      start(next);
      nextStart = now + intervalMillis * 1_000_000;
    }
    if (waiting.isEmpty() && running.isEmpty() && now - nextStart >= 0) {
      onIdle.run();
      return;
    }
    scheduleNextPump(now);
  }

  private K nextDue(long now) {
    Iterator<Map.Entry<K, Long>> keys = waiting.entrySet().iterator();
    while (keys.hasNext()) {
      Map.Entry<K, Long> entry = keys.next();
      if (now - entry.getValue() >= 0) {
        keys.remove();
        return entry.getKey();
      }
      if (ordered) {
        return null;
      }
    }
    return null;
  }

  private void start(K key) {
    running.add(key);
    Future<Void> done;
    try {
      done = work.run(key);
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    done.onComplete(result -> finished(key, result.cause()));
  }

  private void finished(K key, Throwable failure) {
    running.remove(key);
    boolean again = offeredWhileRunning.remove(key);
    if (stopped) {
      return;
    }
    nextStart = System.nanoTime() + intervalMillis * 1_000_000;
    long delay = -1;
    if (failure != null) {
      int failed = failures.merge(key, 1, Integer::sum);
      delay = retry.delayMillis(failure, failed);
    }
    if (delay < 0) {
      failures.remove(key);
    }
    if (delay >= 0 || again) {
      long at = System.nanoTime() + Math.max(delay, 0) * 1_000_000;
      if (ordered) {
        requeueFirst(key, at);
      } else {
        waiting.put(key, at);
      }
    }
    pump();
  }

  private void requeueFirst(K key, long at) {
    Map<K, Long> behind = new LinkedHashMap<>(waiting);
    waiting.clear();
    waiting.put(key, at);
    waiting.putAll(behind);
  }

  private void scheduleNextPump(long now) {
    if (running.size() >= concurrency || (waiting.isEmpty() && !running.isEmpty())) {
      return;
    }
    long earliest = waiting.isEmpty() ? 0 : Long.MAX_VALUE;
    for (long at : waiting.values()) {
      earliest = Math.min(earliest, at - now);
      if (ordered) {
        break;
      }
    }
    long wait = Math.max(earliest, nextStart - now);
    timer = vertx.setTimer(Math.max(1, wait / 1_000_000), fired -> {
      timer = -1;
      pump();
    });
  }

  private void cancelTimer() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }
}
