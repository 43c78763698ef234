package ark.broker;

import com.sun.management.HotSpotDiagnosticMXBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;

/**
 * Collects the heap down to what is live and returns the rest to the system, once, before the broker serves: the
 * warm-up's throwaway broker grew the heap to its burst of load, and by default neither collector gives that back.
 * G1 keeps up to 70 % free after a full collection ({@code MaxHeapFreeRatio}), and the serial collector, which the
 * JVM picks in a container of under 2 CPUs or 2 GiB (Kubernetes' shape), also shrinks only in steps, over four
 * full collections ({@code ShrinkHeapInSteps}), and sizes its young generation from the old one: left alone, it
 * keeps the burst's 60-odd MiB and a 20 MiB young generation for the life of the process. So the free ratios are
 * lowered for these collections (they are manageable flags) and restored after, and the heap grows again with load
 * as it would in a broker started without a warm-up.
 */
final class HeapGiveBack {
  private static final Logger LOG = LoggerFactory.getLogger(HeapGiveBack.class);
  /** The serial collector gives back 0, 10, 40 and then 100 % of the excess in successive full collections. */
  private static final int COLLECTIONS_IN_STEPS = 4;
  private static final String MIN_FREE = "MinHeapFreeRatio";
  private static final String MAX_FREE = "MaxHeapFreeRatio";
  /** Free heap kept after the collections, percent: the young generation's first allocations, not a burst. */
  private static final String FREE_KEPT = "10";

  private HeapGiveBack() {
  }

  /** Returns the heap's committed bytes before and after, as {@code before -> after}, for the log. */
  static String run() {
    long before = heap().getCommitted();
    HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    try {
      String minFree = vm.getVMOption(MIN_FREE).getValue();
      String maxFree = vm.getVMOption(MAX_FREE).getValue();
      vm.setVMOption(MIN_FREE, "0"); // first: the JVM refuses a maximum below the minimum
      vm.setVMOption(MAX_FREE, FREE_KEPT);
      try {
        collect(Boolean.parseBoolean(vm.getVMOption("ShrinkHeapInSteps").getValue()) ? COLLECTIONS_IN_STEPS : 1);
      } finally {
        vm.setVMOption(MAX_FREE, maxFree);
        vm.setVMOption(MIN_FREE, minFree);
      }
    } catch (IllegalArgumentException | UnsupportedOperationException | SecurityException notThisJvm) {
      LOG.debug("The heap's free ratios cannot be set here ({}); one full collection instead", notThisJvm.toString());
      collect(1);
    }
    return mebibytes(before) + " -> " + mebibytes(heap().getCommitted());
  }

  /**
   * Up to {@code times} full collections, fewer once the heap holds little more than what is live: a broker whose
   * store is large has little to give back, and each collection of it takes a while.
   */
  private static void collect(int times) {
    for (int i = 0; i < times; i++) {
      System.gc();
      MemoryUsage heap = heap();
      if (heap.getCommitted() <= 2 * heap.getUsed()) {
        return;
      }
    }
  }

  private static MemoryUsage heap() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
  }

  private static String mebibytes(long bytes) {
    return bytes / (1024 * 1024) + " MiB";
  }
}
