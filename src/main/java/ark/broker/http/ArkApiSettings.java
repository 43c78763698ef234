package ark.broker.http;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.vertx.core.json.JsonObject;

import java.lang.management.ManagementFactory;

/**
 * How the routes of Ark's broker (memory, streams) are served on the REST port, from the {@code arkApi} section.
 *
 * @param bodyLimitBytes larger bodies get 413 (upstream's limit is 10 MB): as sent, and once inflated when compressed
 * @param heartbeatMillis idle watches get {@code : heartbeat} this often (upstream: every 30 s)
 * @param maxWatchesPerLoop watches of one store each event loop serves at most; more get 503
 * @param maxUnreadBytes what may wait unread on one watch before its reader is cut off (it resumes from its cursor)
 * @param maxStreamLineBytes the longest NDJSON line a stream request may send; a longer one gets 413
 * @param maxReadersPerStream readers of one Query's stream each event loop serves; more get 503
 * @param streamReaderIdleMillis a stream reader that neither gets a chunk nor sees the stream end this long gets a
 *     timeout error and {@code [DONE]} (Ark's STREAM_IDLE_TIMEOUT_MS)
 * @param maxJsonDepth arrays and objects a JSON body or stream line may nest; deeper ones get 400
 * @param maxSpansPerRequest spans one trace export may carry (the {@code traces} section's), counted as it is decoded
 * @param maxHeldBytes what all clients together may make the broker hold: the bytes every watch and stream reader has
 *     not read yet, and the JSON bodies being read whole
 * @param allowPurges whether an admin may purge a whole store ({@code DELETE /messages}, {@code /stream},
 *     {@code /events}, {@code /sessions}, {@code /traces}); when not, those routes answer 405
 */
public record ArkApiSettings(long bodyLimitBytes, long heartbeatMillis, int maxWatchesPerLoop, long maxUnreadBytes,
                             int maxStreamLineBytes, int maxReadersPerStream, long streamReaderIdleMillis,
                             int maxJsonDepth, int maxSpansPerRequest, long maxHeldBytes, boolean allowPurges) {

  public static ArkApiSettings from(JsonObject arkApi, JsonObject traces) {
    ArkApiSettings settings = new ArkApiSettings(arkApi.getLong("bodyLimitBytes"),
        arkApi.getLong("heartbeatSeconds") * 1000, arkApi.getInteger("maxWatchesPerLoop"),
        arkApi.getLong("maxUnreadBytes"), arkApi.getInteger("maxStreamLineBytes"),
        arkApi.getInteger("maxReadersPerStream"), arkApi.getLong("streamReaderIdleSeconds") * 1000,
        arkApi.getInteger("maxJsonDepth"), traces.getInteger("maxSpansPerRequest"), arkApi.getLong("maxHeldBytes"),
        arkApi.getBoolean("allowPurges", true));
    if (settings.bodyLimitBytes < 1 || settings.bodyLimitBytes > Integer.MAX_VALUE - 8 || settings.heartbeatMillis < 1
        || settings.maxWatchesPerLoop < 1 || settings.maxUnreadBytes < 1 || settings.maxStreamLineBytes < 1
        || settings.maxReadersPerStream < 1 || settings.streamReaderIdleMillis < 1 || settings.maxJsonDepth < 1
        || settings.maxHeldBytes < 1) {
      throw new IllegalArgumentException("every arkApi setting must be positive, and arkApi.bodyLimitBytes below 2 GiB");
    }
    if (settings.maxHeldBytes < Math.max(settings.bodyLimitBytes, settings.maxUnreadBytes)) {
      throw new IllegalArgumentException("arkApi.maxHeldBytes (" + settings.maxHeldBytes + ") must be at least"
          + " arkApi.bodyLimitBytes (" + settings.bodyLimitBytes + ") and arkApi.maxUnreadBytes ("
          + settings.maxUnreadBytes + ")");
    }
    long direct = maxDirectMemory();
    // Readers being cut off hold what they held until their connections close: room for a few times the budget.
    if (settings.maxHeldBytes > direct / 4) {
      throw new IllegalArgumentException("arkApi.maxHeldBytes (" + settings.maxHeldBytes + ") must be at most a quarter"
          + " of the direct memory this JVM may use (" + direct + " bytes, -XX:MaxDirectMemorySize), where unread bytes"
          + " wait");
    }
    return settings;
  }

  /** What -XX:MaxDirectMemorySize allows; by default the JVM allows as much as its heap. */
  private static long maxDirectMemory() {
    long set = Long.parseLong(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
        .getVMOption("MaxDirectMemorySize").getValue());
    return set > 0 ? set : Runtime.getRuntime().maxMemory();
  }
}
