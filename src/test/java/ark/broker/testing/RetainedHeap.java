package ark.broker.testing;

import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * What a store holds on the heap, measured: the heap in use after full collections, before and after it is filled.
 * Other threads of the test JVM (a shared Kafka broker, clients left by earlier classes) keep allocating, and
 * what they hold at either measure lands on the store; so the store is filled three times, each dropped before the
 * next, and the least figure counts.
 */
public final class RetainedHeap {
  private static final int ATTEMPTS = 3;

  private RetainedHeap() {
  }

  /**
   * Heap bytes held per byte the store counts.
   *
   * @param fill builds and fills a store
   * @param counted the bytes the filled store counts against its bound
   */
  public static <T> double perCountedByte(Supplier<T> fill, ToLongFunction<T> counted) {
    double least = Double.MAX_VALUE;
    for (int i = 0; i < ATTEMPTS; i++) {
      least = Math.min(least, once(fill, counted));
    }
    return least;
  }

  private static <T> double once(Supplier<T> fill, ToLongFunction<T> counted) {
    long before = usedAfterCollections();
    T store = fill.get();
    try {
      long after = usedAfterCollections();
      return (double) (after - before) / counted.applyAsLong(store);
    } finally {
      Reference.reachabilityFence(store);
    }
  }

  private static long usedAfterCollections() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
