package ark.broker.streams;

import io.vertx.core.json.JsonObject;

/**
 * How much of the LLM streams is kept, and how long a posting request may stay quiet.
 *
 * @param maxBytes chunks kept at most, by their size (Ark's CHUNK_MAX_BYTES); the oldest go first
 * @param maxAgeMillis how long a chunk is kept (Ark keeps a stream an hour after its last chunk)
 * @param producerIdleMillis a request that announced it posts for long and is silent this long counts as ended, so
 *     a completed stream whose poster died still ends
 * @param snapshotEveryRecords records between two snapshots, after which the log forgets what aged out
 * @param readBackTimeoutMillis how long a write waits to read its own record back from a shared log
 * @param completeWaitMillis how long a completion of a stream with no chunk yet waits for one: the post it ends may
 *     still be on its way, on another connection or replica
 */
public record StreamSettings(long maxBytes, long maxAgeMillis, long producerIdleMillis, long snapshotEveryRecords,
                             long readBackTimeoutMillis, long completeWaitMillis) {

  /** From the {@code streams} section, and the {@code store} section's snapshot and read-back settings. */
  public static StreamSettings from(JsonObject streams, JsonObject store) {
    StreamSettings settings = new StreamSettings(streams.getLong("maxBytes"), streams.getLong("maxAgeSeconds") * 1000,
        streams.getLong("producerIdleSeconds") * 1000, store.getLong("snapshotEveryEvents"),
        store.getLong("readBackTimeoutMillis"), streams.getLong("completeWaitMillis"));
    if (settings.maxBytes < 1 || settings.maxAgeMillis < 1 || settings.producerIdleMillis < 1) {
      throw new IllegalArgumentException("streams.maxBytes, maxAgeSeconds and producerIdleSeconds must be positive");
    }
    // The completion is answered through the store, whose callers give up after the request timeout.
    if (settings.completeWaitMillis < 0 || settings.completeWaitMillis >= store.getLong("requestTimeoutMillis")) {
      throw new IllegalArgumentException("streams.completeWaitMillis must be at least 0 and below "
          + "store.requestTimeoutMillis");
    }
    return settings;
  }
}
