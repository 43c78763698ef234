package ark.broker.testing;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/** Waits for a condition a test expects to become true, by polling it until a deadline. */
public final class Eventually {
  private static final Duration DEADLINE = Duration.ofSeconds(20);

  private Eventually() {
  }

  /** Polls {@code probe} until {@code done} accepts what it returns, and returns that. */
  public static <T> T until(String what, Callable<T> probe, Predicate<T> done) throws Exception {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    long pause = 10;
    T last = probe.call();
    while (!done.test(last)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + " did not happen within " + DEADLINE + "; last seen: " + last);
      }
      Thread.sleep(pause);
      pause = Math.min(pause * 2, 100);
      last = probe.call();
    }
    return last;
  }
}
