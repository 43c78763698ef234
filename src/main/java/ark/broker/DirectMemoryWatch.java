package ark.broker;

import io.netty.util.internal.PlatformDependent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.util.Timer;
import java.util.TimerTask;
import java.util.function.LongSupplier;

/**
 * Direct memory running out, handled as the heap's running out is ({@code -XX:+ExitOnOutOfMemoryError}, which does
 * not cover it): an allocation that finds none makes its thread collect and sleep before it fails, so a broker whose
 * direct memory stays full would stay up while its event loops serve nothing. Once it has been full for a few
 * seconds in a row the process exits, and whatever runs it starts it again; nothing acknowledged is lost. Checked
 * from a thread of its own, which a stuck event loop cannot hold up. The clients' budget
 * ({@code arkApi.maxHeldBytes}, at most a quarter of direct memory) keeps this from happening in the first place.
 */
final class DirectMemoryWatch {
  private static final Logger LOG = LoggerFactory.getLogger(DirectMemoryWatch.class);
  private static final long PERIOD_MILLIS = 1000;
  /** Checks in a row that find it full before the process exits. */
  static final int FULL_CHECKS = 5;

  private final LongSupplier used;
  private final long max;
  private int fullFor;

  DirectMemoryWatch(LongSupplier used, long max) {
    this.used = used;
    this.max = max;
  }

  /** One check; true once direct memory has been full (within 5 %) for {@link #FULL_CHECKS} checks in a row. */
  boolean full() {
    fullFor = used.getAsLong() >= max - max / 20 ? fullFor + 1 : 0;
    return fullFor >= FULL_CHECKS;
  }

  /** Watches this process's direct memory, the JVM's buffers and Netty's own, every second, for as long as it runs. */
  static void start() {
    BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
        .filter(pool -> pool.getName().equals("direct")).findFirst().orElse(null);
    long max = PlatformDependent.maxDirectMemory();
    if (direct == null || max <= 0) {
      return;
    }
    DirectMemoryWatch watch = new DirectMemoryWatch(
        () -> direct.getMemoryUsed() + Math.max(0, PlatformDependent.usedDirectMemory()), max);
    new Timer("direct-memory-watch", true).schedule(new TimerTask() {
      @Override
      public void run() {
        if (watch.full()) {
          LOG.error("Direct memory has been full ({} bytes, -XX:MaxDirectMemorySize) for {} s: exiting, so that"
              + " whatever runs the broker starts it again", max, FULL_CHECKS * PERIOD_MILLIS / 1000);
          Runtime.getRuntime().halt(3);
        }
      }
    }, PERIOD_MILLIS, PERIOD_MILLIS);
  }
}
