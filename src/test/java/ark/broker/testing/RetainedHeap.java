package ark.broker.testing;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;

/** What a store holds on the heap, measured: the heap in use after full collections, before and after it is filled. */
public final class RetainedHeap {
  private RetainedHeap() {
  }

  /**
   * Heap bytes held per byte the store counts: {@code fill} fills it and returns what it counts, while this holds it.
   *
   * @param fill fills a store kept reachable by the caller, returns the bytes it counts
   */
  public static double perCountedByte(LongSupplier fill) {
    long before = usedAfterCollections();
    long counted = fill.getAsLong();
    long after = usedAfterCollections();
    return (double) (after - before) / counted;
  }

  private static long usedAfterCollections() {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
