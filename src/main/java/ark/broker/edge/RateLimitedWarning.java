package ark.broker.edge;

import org.slf4j.Logger;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A WARN line for an event a flood repeats: at most one line per period, which says how often the event
 * happened since the last line. Safe to call from any thread.
 */
public final class RateLimitedWarning {
  private static final long PERIOD_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final Logger log;
  private final AtomicLong unreported = new AtomicLong();
  private final AtomicLong nextLineAt = new AtomicLong(System.nanoTime());

  public RateLimitedWarning(Logger log) {
    this.log = log;
  }

  /** Counts the event; writes {@code message} when no line was written in the last period. */
  public void warn(Supplier<String> message) {
    unreported.incrementAndGet();
    long now = System.nanoTime();
    long due = nextLineAt.get();
    if (now - due >= 0 && nextLineAt.compareAndSet(due, now + PERIOD_NANOS)) {
      long times = unreported.getAndSet(0);
      log.warn("{}{}", message.get(), times > 1 ? " (" + times + " times since the last such line)" : "");
    }
  }
}
