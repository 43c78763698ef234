package ark.broker.store;

import ark.broker.auth.Actor;
import ark.broker.auth.AuthMethod;
import ark.broker.auth.Principal;
import ark.broker.auth.PrincipalKind;
import ark.broker.bus.StoreFailure;
import ark.broker.question.Attribution;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides whether an actor may create one more question now, by its {@link Budget}s: how many of its questions are
 * pending and how many it created in the last minute, both learnt from the log (the view's pending counts, and a
 * token bucket per principal that every create record drains, {@link #created}), so every replica and every restart
 * agrees and replicas behind a load balancer together allow one budget; plus the creates admitted here and still
 * being written. The question counts against the principal it is asked as and, when a service acts for an agent,
 * against the service's own total for the agents it acts for too: both must admit it. Not thread-safe: the store's
 * event loop owns it.
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
   * One budget a create spends: {@code key} names its counts, {@code pending} is what the view counts against it,
   * and refusals say {@code who} has spent it, {@code scope} on what.
   */
  private record Account(String key, Budget budget, long pending, String who, String scope) {
  }

  /**
   * Admits one create by {@code actor}, whose effective principal has {@code pending} pending questions in the view
   * and whose service (when it acts for an agent) has {@code pendingActedFor} pending over every agent it acts for,
   * and counts it as being written until {@link #written}; or returns why not (429 with the seconds to wait),
   * counting nothing.
   */
  StoreFailure admit(Actor actor, long pending, long pendingActedFor) {
    List<Account> accounts = accounts(actor, pending, pendingActedFor);
    long now = clock.millis();
    sweep(now);
    for (Account account : accounts) {
      int most = account.budget().maxPendingQuestions();
      if (Budget.full(most, account.pending() + writing.getOrDefault(account.key(), 0))) {
        return tooMany(account.who() + " already has " + Budget.count(most, "pending question") + account.scope()
            + ", the most its budget allows; another can be asked once one is answered, cancelled or expires",
            PENDING_RETRY_SECONDS);
      }
    }
    for (Account account : accounts) {
      int perMinute = account.budget().createsPerMinute();
      long waitMillis = perMinute > 0 ? bucket(account, now).waitMillis(now, writing.getOrDefault(account.key(), 0)) : 0;
      if (waitMillis > 0) {
        return tooMany(account.who() + " may create " + Budget.count(perMinute, "question") + " a minute" + account.scope(),
            Math.max(1, (waitMillis + 999) / 1000));
      }
    }
    for (Account account : accounts) {
      writing.merge(account.key(), 1, Integer::sum);
    }
    return null;
  }

  /**
   * A create record of the log, on whichever replica it was admitted: it spends its minute's budgets, as of when it
   * was created. Who asked is what its history records, so budgets that name a team count it only once the team's
   * member has created on this replica (until then the default budget's size is assumed).
   */
  void created(Attribution by, Instant createdAt) {
    long at = createdAt.toEpochMilli();
    if (by == null || by.principal() == null || at < clock.millis() - MINUTE_MILLIS) {
      return;
    }
    Principal asker;
    try {
      asker = new Principal(PrincipalKind.parse(by.kind()), by.principal(), List.of(), AuthMethod.TOKEN);
    } catch (IllegalArgumentException unknownKind) {
      return;
    }
    for (Account account : accounts(new Actor(asker, by.actingFor()), 0, 0)) {
      if (account.budget().createsPerMinute() > 0) {
        bucket(account, at).take(at);
      }
    }
  }

  /** The create that {@link #admit} let through is written (or failed): the view counts it now, if anything does. */
  void written(Actor actor) {
    for (Account account : accounts(actor, 0, 0)) {
      writing.computeIfPresent(account.key(), (name, count) -> count == 1 ? null : count - 1);
    }
  }

  int principalsTracked() {
    return buckets.size();
  }

  /**
   * The budgets the actor's creates spend: the effective principal's, and the acting service's total. An admin's
   * spend none, for an agent or not: every request of an open broker is an admin's, and it has no budgets.
   */
  private List<Account> accounts(Actor actor, long pending, long pendingActedFor) {
    if (actor.principal().isAdmin()) {
      return List.of();
    }
    Principal asker = actor.effective();
    List<Account> accounts = new ArrayList<>(2);
    Budget own = budgets.of(asker);
    if (!own.equals(Budget.UNLIMITED)) {
      accounts.add(new Account(asker.name(), own, pending, asker.name(), ""));
    }
    if (actor.impersonating()) {
      Principal service = actor.principal();
      Budget total = budgets.actingFor(service);
      if (!total.equals(Budget.UNLIMITED)) {
        // A key no principal's name can be: names have no spaces.
        accounts.add(new Account(service.name() + " acting for agents", total, pendingActedFor, service.name(),
            " over every agent it acts for"));
      }
    }
    return accounts;
  }

  /** The account's bucket, of its budget's size (a bucket first met in the log may have assumed another). */
  private Bucket bucket(Account account, long now) {
    Bucket bucket = buckets.computeIfAbsent(account.key(), key -> new Bucket(account.budget().createsPerMinute(), now));
    bucket.capacity = account.budget().createsPerMinute();
    return bucket;
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

  /**
   * Creates spent of a minute's budget, given back continuously: the whole budget over one minute. Creates are taken
   * as the log brings them, so the bucket may be overdrawn by creates other replicas admitted meanwhile.
   */
  private static final class Bucket {
    private int capacity;
    private double spent;
    private long at;

    Bucket(int capacity, long now) {
      this.capacity = capacity;
      this.at = now;
    }

    /** 0 if one more create may be admitted now, beside {@code reserved} ones being written; else how long until one may. */
    long waitMillis(long now, int reserved) {
      giveBack(now);
      double excess = spent + reserved + 1 - capacity;
      return excess <= 0 ? 0 : (long) Math.ceil(excess * MINUTE_MILLIS / capacity);
    }

    /** One create, made at {@code when}. */
    void take(long when) {
      giveBack(when);
      spent += 1;
    }

    boolean fullAt(long now) {
      giveBack(now);
      return spent <= 0;
    }

    private void giveBack(long now) {
      if (now > at) {
        spent = Math.max(0, spent - (now - at) * (double) capacity / MINUTE_MILLIS);
        at = now;
      }
    }
  }
}
