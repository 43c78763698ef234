package ark.broker.memory;

import io.vertx.core.json.JsonObject;

/**
 * How much conversation memory keeps, and how.
 *
 * @param maxBytes messages kept at most, by the size of their items (Ark's MESSAGE_MAX_BYTES); the oldest go first
 * @param maxAgeMillis how long a message stays without a {@code ttl_seconds} of its own (Ark's
 *     MESSAGE_VISIBILITY_TTL_SECONDS); a ttl longer than this is cut to it
 * @param maxMessagesPerAppend messages one {@code POST /messages} may carry
 * @param snapshotEveryRecords records between two snapshots, after which the log forgets what aged out
 * @param readBackTimeoutMillis how long a write waits to read its own record back from a shared log
 */
public record MemorySettings(long maxBytes, long maxAgeMillis, int maxMessagesPerAppend, long snapshotEveryRecords,
                             long readBackTimeoutMillis) {

  /** From the {@code memory} section, and the {@code store} section's snapshot and read-back settings. */
  public static MemorySettings from(JsonObject memory, JsonObject store) {
    long maxBytes = memory.getLong("maxBytes");
    long maxAgeSeconds = memory.getLong("maxAgeSeconds");
    int perAppend = memory.getInteger("maxMessagesPerAppend");
    if (maxBytes < 1 || maxAgeSeconds < 1 || perAppend < 1) {
      throw new IllegalArgumentException("memory.maxBytes, memory.maxAgeSeconds and memory.maxMessagesPerAppend must be"
          + " positive, not " + maxBytes + ", " + maxAgeSeconds + " and " + perAppend);
    }
    return new MemorySettings(maxBytes, maxAgeSeconds * 1000, perAppend, store.getLong("snapshotEveryEvents"),
        store.getLong("readBackTimeoutMillis"));
  }
}
