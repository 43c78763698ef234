package ark.broker.store;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.vertx.core.json.JsonObject;

/**
 * How the store keeps its view.
 *
 * @param watchHistory how many recent changes a reconnecting watcher can resume from
 * @param snapshotEveryEvents events between two snapshots of the log
 * @param expiryCheckMillis how often the worker checks pending questions against their expiry
 * @param readBackTimeoutMillis how long a write waits to read its own record back from a shared log
 *     before it answers that the write is durable but its outcome not yet known
 * @param requestTimeoutMillis how long any room waits for the store's reply before it answers "unavailable"
 */
@JsonIgnoreProperties({"dataDir", "fsync"})
public record StoreSettings(int watchHistory, long snapshotEveryEvents, long expiryCheckMillis, long readBackTimeoutMillis,
                            long requestTimeoutMillis) {

  /** Binds the {@code store} section by name; the data directory and fsync belong to the log. */
  public static StoreSettings from(JsonObject store) {
    return store.mapTo(StoreSettings.class);
  }
}
