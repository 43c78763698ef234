package ark.broker.traces;

import ark.broker.bus.TraceStore;
import io.vertx.core.json.JsonObject;

/**
 * How much the traces store keeps, and how.
 *
 * @param maxBytes spans kept at most, by the size of their items (Ark's TRACE_MAX_BYTES); the oldest go first
 * @param maxAgeMillis how long a span stays
 * @param maxSpansPerRequest spans one export request may carry
 * @param snapshotEveryRecords records between two snapshots, after which the log forgets what aged out
 * @param readBackTimeoutMillis how long a write waits to read its own record back from a shared log
 */
public record TraceSettings(long maxBytes, long maxAgeMillis, int maxSpansPerRequest, long snapshotEveryRecords,
                            long readBackTimeoutMillis) {

  /** From the {@code traces} section, and the {@code store} section's log settings. */
  public static TraceSettings from(JsonObject traces, JsonObject store) {
    long maxBytes = traces.getLong("maxBytes");
    long maxAgeSeconds = traces.getLong("maxAgeSeconds");
    int perRequest = traces.getInteger("maxSpansPerRequest");
    if (maxBytes < 1 || maxAgeSeconds < 1 || perRequest < 1 || perRequest > TraceStore.SPANS_PER_RECORD) {
      throw new IllegalArgumentException("traces.maxBytes and traces.maxAgeSeconds must be positive, and"
          + " traces.maxSpansPerRequest between 1 and " + TraceStore.SPANS_PER_RECORD + ", not " + maxBytes + ", "
          + maxAgeSeconds + " and " + perRequest);
    }
    return new TraceSettings(maxBytes, maxAgeSeconds * 1000, perRequest, store.getLong("snapshotEveryEvents"),
        store.getLong("readBackTimeoutMillis"));
  }
}
