package ark.broker.reconcile;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/**
 * A full pass over everything, for level-triggered work that must not rely on having seen every change:
 * run while this replica does the work (the worker), at once when it starts to, every period, and again
 * with backoff after a failure. Never two passes at once; a pass asked for while one runs follows it.
 * Used from one event loop only.
 */
public final class PeriodicPass {
  private static final Logger LOG = LoggerFactory.getLogger(PeriodicPass.class);

  private final Vertx vertx;
  private final String name;
  private final Backoff backoff;
  private final Supplier<Future<Void>> pass;
  private final long periodic;
  private boolean active;
  private boolean running;
  private boolean again;
  private int failures;
  private long retryTimer = -1;

  /** @param name what the pass does, for the log ("Query status pass") */
  public PeriodicPass(Vertx vertx, String name, long periodMillis, Backoff backoff, Supplier<Future<Void>> pass) {
    this.vertx = vertx;
    this.name = name;
    this.backoff = backoff;
    this.pass = pass;
    this.periodic = vertx.setPeriodic(periodMillis, tick -> runSoon());
  }

  /** Starts (with a pass at once) or stops the passes, as this replica gains or loses the work. */
  public void setActive(boolean active) {
    if (active == this.active) {
      return;
    }
    this.active = active;
    failures = 0;
    cancelRetry();
    if (active) {
      runSoon();
    }
  }

  public boolean isActive() {
    return active;
  }

  /** Runs a pass now, or right after the one under way. */
  public void runSoon() {
    if (!active) {
      return;
    }
    if (running) {
      again = true;
      return;
    }
    running = true;
    Future<Void> done;
    try {
      done = pass.get();
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    done.onComplete(result -> {
      running = false;
      if (result.failed()) {
        failed(result.cause());
      } else if (failures > 0) {
        LOG.info("{} succeeded after {} failed attempts", name, failures);
        failures = 0;
      }
      if (again) {
        again = false;
        runSoon();
      }
    });
  }

  public void stop() {
    active = false;
    cancelRetry();
    vertx.cancelTimer(periodic);
  }

  private void failed(Throwable failure) {
    failures++;
    if (failures == 1) {
      LOG.warn("{} failed ({}); retrying with backoff", name, failure.getMessage());
    } else {
      LOG.debug("{} failed again (attempt {}): {}", name, failures, failure.getMessage());
    }
    if (retryTimer < 0 && active) {
      retryTimer = vertx.setTimer(backoff.delayMillis(failures), fired -> {
        retryTimer = -1;
        runSoon();
      });
    }
  }

  private void cancelRetry() {
    if (retryTimer >= 0) {
      vertx.cancelTimer(retryTimer);
      retryTimer = -1;
    }
  }
}
