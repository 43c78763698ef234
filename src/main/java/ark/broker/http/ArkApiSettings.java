package ark.broker.http;

import io.vertx.core.json.JsonObject;

/**
 * How the routes of Ark's broker (memory, streams) are served on the REST port, from the {@code arkApi} section.
 *
 * @param bodyLimitBytes larger JSON bodies get 413 (upstream's limit is 10 MB)
 * @param heartbeatMillis idle watches get {@code : heartbeat} this often (upstream: every 30 s)
 * @param maxWatchesPerLoop watches of one store each event loop serves at most; more get 503
 * @param maxUnreadBytes what may wait unread on one watch before its reader is cut off (it resumes from its cursor)
 */
public record ArkApiSettings(long bodyLimitBytes, long heartbeatMillis, int maxWatchesPerLoop, long maxUnreadBytes) {

  public static ArkApiSettings from(JsonObject arkApi) {
    ArkApiSettings settings = new ArkApiSettings(arkApi.getLong("bodyLimitBytes"),
        arkApi.getLong("heartbeatSeconds") * 1000, arkApi.getInteger("maxWatchesPerLoop"),
        arkApi.getLong("maxUnreadBytes"));
    if (settings.bodyLimitBytes < 1 || settings.heartbeatMillis < 1 || settings.maxWatchesPerLoop < 1
        || settings.maxUnreadBytes < 1) {
      throw new IllegalArgumentException("arkApi.bodyLimitBytes, heartbeatSeconds, maxWatchesPerLoop and maxUnreadBytes"
          + " must be positive");
    }
    return settings;
  }
}
