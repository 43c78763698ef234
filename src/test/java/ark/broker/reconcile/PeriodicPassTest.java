package ark.broker.reconcile;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class PeriodicPassTest {
  private static final long HOUR = TimeUnit.HOURS.toMillis(1);
  private final Vertx vertx = Vertx.vertx();
  private final AtomicInteger passes = new AtomicInteger();

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** A pass created on an event loop, as a verticle creates it, whose first {@code failingPasses} runs fail. */
  private PeriodicPass pass(long periodMillis, int failingPasses) throws Exception {
    CompletableFuture<PeriodicPass> created = new CompletableFuture<>();
    vertx.runOnContext(ignored -> created.complete(new PeriodicPass(vertx, "test pass", periodMillis, new Backoff(10, 20),
        () -> passes.incrementAndGet() <= failingPasses
            ? Future.failedFuture(new IllegalStateException("not yet")) : Future.succeededFuture())));
    return created.get(10, TimeUnit.SECONDS);
  }

  private void awaitPasses(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (passes.get() < count && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(passes.get()).isGreaterThanOrEqualTo(count);
  }

  @Test
  void runsAtOnceWhenActivatedAndRetriesFailuresWithBackoff() throws Exception {
    PeriodicPass pass = pass(HOUR, 2);

    vertx.runOnContext(ignored -> pass.setActive(true));

    awaitPasses(3);
  }

  @Test
  void runsEveryPeriodOnlyWhileActive() throws Exception {
    PeriodicPass pass = pass(20, 0);

    // Five periods go by while inactive.
    vertx.timer(100).await(10, TimeUnit.SECONDS);
    assertThat(passes.get()).as("inactive").isZero();
    vertx.runOnContext(ignored -> pass.setActive(true));
    awaitPasses(3);
  }
}
