package ark.broker.querysessions;

import io.vertx.core.json.JsonObject;

/**
 * How much of the sessions the projection keeps.
 *
 * @param maxBytes the facts (and, as much again, the conversations linked by messages) kept at most, by their size;
 *     the oldest go first
 * @param maxAgeMillis how long a fact stays (Ark's SESSIONS_VISIBILITY_TTL_SECONDS)
 */
public record QuerySessionSettings(long maxBytes, long maxAgeMillis) {

  /** From the {@code querySessions} section. */
  public static QuerySessionSettings from(JsonObject querySessions) {
    long maxBytes = querySessions.getLong("maxBytes");
    long maxAgeSeconds = querySessions.getLong("maxAgeSeconds");
    if (maxBytes < 1 || maxAgeSeconds < 1) {
      throw new IllegalArgumentException("querySessions.maxBytes and querySessions.maxAgeSeconds must be positive, not "
          + maxBytes + " and " + maxAgeSeconds);
    }
    return new QuerySessionSettings(maxBytes, maxAgeSeconds * 1000);
  }
}
