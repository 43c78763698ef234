package ark.broker;

import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * Whether Ark's stores, filled to their bounds, fit the heap: a broker whose bounds need more than it has would run
 * for as long as it takes to fill them, then run out of memory, and run out again on every start that replays
 * them. Refused at start instead, naming both numbers.
 */
final class HeapBudget {
  private static final long MIB = 1024 * 1024;
  /** The stores whose {@code maxBytes} bound what they keep on the heap. */
  static final List<String> STORES = List.of("memory", "events", "querySessions", "streams", "traces");
  /**
   * Heap a store needs per byte its bound counts. What it holds is what it counts, about (measured: 0.94 to 1.07
   * for messages of 1 MiB, 1.03 for messages of 10 characters); the serial collector, which the JVM picks in a container of less
   * than 2 GiB, keeps what lives long in its old generation, two thirds of the heap.
   */
  static final double HEAP_PER_COUNTED_BYTE = 1.6;
  /**
   * The heap the rest of a broker needs: the questions and MCP sessions, request bodies in flight, a page being
   * sent, the logs' read-ahead while they replay, and the broker's own code and buffers.
   */
  static final long RESERVE = 128 * MIB;

  private HeapBudget() {
  }

  /** What the stores' bounds in {@code config} need of the heap, and the reserve: bytes. */
  static long needed(JsonObject config) {
    long bounds = STORES.stream().mapToLong(store -> config.getJsonObject(store).getLong("maxBytes")).sum();
    return (long) (bounds * HEAP_PER_COUNTED_BYTE) + RESERVE;
  }

  /** @throws IllegalStateException when the bounds need more than {@code maxHeap} bytes, naming both */
  static void check(JsonObject config, long maxHeap) {
    long needed = needed(config);
    if (needed > maxHeap) {
      throw new IllegalStateException("The stores' bounds (" + String.join(", ", STORES.stream()
          .map(store -> store + ".maxBytes " + config.getJsonObject(store).getLong("maxBytes") / MIB + " MiB").toList())
          + ") need a heap of " + needed / MIB + " MiB (" + HEAP_PER_COUNTED_BYTE + " heap bytes per byte kept, and "
          + RESERVE / MIB + " MiB for the rest of the broker), more than the " + maxHeap / MIB
          + " MiB this JVM may use: give it more (-Xmx, or more memory with -XX:MaxRAMPercentage) or lower the bounds");
    }
  }
}
