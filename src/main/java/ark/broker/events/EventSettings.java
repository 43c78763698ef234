package ark.broker.events;

import io.vertx.core.json.JsonObject;

/**
 * How much the events store keeps, and how.
 *
 * @param maxBytes events kept at most, by the size of their items (Ark's EVENT_MAX_BYTES); the oldest go first
 * @param maxAgeMillis how long an event stays without a {@code ttl_seconds} of its own (Ark's
 *     EVENT_VISIBILITY_TTL_SECONDS); a ttl longer than this is cut to it
 * @param factsMaxBytes the sessions' facts kept at most, by their size (the {@code querySessions} section)
 * @param factsMaxAgeMillis how long a fact of the sessions stays (Ark's SESSIONS_VISIBILITY_TTL_SECONDS)
 * @param snapshotEveryRecords records between two snapshots, after which the log forgets what aged out
 * @param readBackTimeoutMillis how long a write waits to read its own record back from a shared log
 */
public record EventSettings(long maxBytes, long maxAgeMillis, long factsMaxBytes, long factsMaxAgeMillis,
                            long snapshotEveryRecords, long readBackTimeoutMillis) {

  /** From the {@code events} and {@code querySessions} sections, and the {@code store} section's log settings. */
  public static EventSettings from(JsonObject events, JsonObject querySessions, JsonObject store) {
    return new EventSettings(positive(events, "events", "maxBytes"), positive(events, "events", "maxAgeSeconds") * 1000,
        positive(querySessions, "querySessions", "maxBytes"),
        positive(querySessions, "querySessions", "maxAgeSeconds") * 1000,
        store.getLong("snapshotEveryEvents"), store.getLong("readBackTimeoutMillis"));
  }

  static long positive(JsonObject section, String name, String key) {
    long value = section.getLong(key);
    if (value < 1) {
      throw new IllegalArgumentException(name + "." + key + " must be positive, not " + value);
    }
    return value;
  }
}
