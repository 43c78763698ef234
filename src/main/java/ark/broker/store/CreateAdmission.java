package ark.broker.store;

import ark.broker.auth.Principal;
import ark.broker.bus.StoreFailure;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;

/**
 * Decides whether a principal may create one more question now, by its {@link Budget}: how many of its questions
 * are pending (from the view, so every replica and every restart agrees, plus the creates of it still being
 * written here) and how many it created in the last minute (a token bucket per principal, on this replica only:
 * with replicas behind a load balancer a principal may create up to that many per minute on each). Not
 * thread-safe: the store's event loop owns it.
 */
final class CreateAdmission {
  /** A pending question frees its place when someone answers it: no one can say when, so ask again this soon. */
  static final long PENDING_RETRY_SECONDS = 30;
  private static final long MINUTE_MILLIS = 60_000;

  private final Budgets budgets;
  private final Clock clock;
  private final Map<String, Bucket> buckets = new HashMap<>();
  private final Map<String, Integer> writing = new HashMap<>();
  private long sweptAt;

  CreateAdmission(Budgets budgets, Clock clock) {
    this.budgets = budgets;
    this.clock = clock;
    this.sweptAt = clock.millis();
  }

  /**
   * Admits one create by {@code principal}, which has {@code pending} pending questions in the view, and counts
   * it as being written until {@link #written}; or returns why not (429 with the seconds to wait), counting nothing.
   */
  StoreFailure admit(Principal principal, long pending) {
    Budget budget = budgets.of(principal);
    if (budget.equals(Budget.UNLIMITED)) {
      return null;
    }
    String name = principal.name();
    long now = clock.millis();
    sweep(now);
    if (Budget.full(budget.maxPendingQuestions(), pending + writing.getOrDefault(name, 0))) {
      return tooMany(name + " already has " + Budget.count(budget.maxPendingQuestions(), "pending question")
          + ", the most its budget allows; another can be asked once one is answered, cancelled or expires",
          PENDING_RETRY_SECONDS);
    }
    if (budget.createsPerMinute() > 0) {
      Bucket bucket = buckets.computeIfAbsent(name, key -> new Bucket(budget.createsPerMinute(), now));
      long waitMillis = bucket.take(now);
      if (waitMillis > 0) {
        return tooMany(name + " may create " + Budget.count(budget.createsPerMinute(), "question") + " a minute",
            Math.max(1, (waitMillis + 999) / 1000));
      }
    }
    writing.merge(name, 1, Integer::sum);
    return null;
  }

  /** The create that {@link #admit} let through is written (or failed): the view counts it now, if anything does. */
  void written(Principal principal) {
    writing.computeIfPresent(principal.name(), (name, count) -> count == 1 ? null : count - 1);
  }

  int principalsTracked() {
    return buckets.size();
  }

  private static StoreFailure tooMany(String why, long retryAfterSeconds) {
    return new StoreFailure(StoreFailure.Reason.TOO_MANY_REQUESTS, why + "; retry in " + retryAfterSeconds
        + (retryAfterSeconds == 1 ? " second" : " seconds"), retryAfterSeconds);
  }

  /** Once a minute, forgets the principals whose bucket has filled up again: a new bucket starts full too. */
  private void sweep(long now) {
    if (now - sweptAt < MINUTE_MILLIS) {
      return;
    }
    sweptAt = now;
    buckets.values().removeIf(bucket -> bucket.fullAt(now));
  }

  /** Creates left for a minute's budget, refilled continuously: the whole budget over one minute. */
  private static final class Bucket {
    private final int capacity;
    private double tokens;
    private long at;

    Bucket(int capacity, long now) {
      this.capacity = capacity;
      this.tokens = capacity;
      this.at = now;
    }

    /** Takes one create and returns 0, or returns how many milliseconds until one is there. */
    long take(long now) {
      refill(now);
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      return (long) Math.ceil((1 - tokens) * MINUTE_MILLIS / capacity);
    }

    boolean fullAt(long now) {
      refill(now);
      return tokens >= capacity;
    }

    private void refill(long now) {
      tokens = Math.min(capacity, tokens + (now - at) * (double) capacity / MINUTE_MILLIS);
      at = now;
    }
  }
}
