package ark.broker.http;

import ark.broker.edge.ServerLimits;
import io.vertx.core.json.JsonObject;

import java.util.List;

/**
 * The REST surface's settings.
 *
 * @param bodyLimitBytes larger request bodies get 413 before they are read
 * @param channelBodyLimitBytes the same for requests that Slack, GitHub and other channels send
 * @param heartbeatSeconds idle watch streams get a comment this often, so proxies keep them open
 * @param instances event loops serving the port; 0 for one per core
 * @param inboundTimeoutMillis how long a channel's request waits for the channel room before answering 503
 * @param limits connections, timeouts and header sizes the port allows
 * @param allowedHosts host names the API and dashboard answer to (DNS-rebinding protection)
 * @param accessLog whether every request gets an access-log line (off by default: it costs more than the request)
 */
public record HttpSettings(String host, int port, long bodyLimitBytes, long channelBodyLimitBytes, long heartbeatSeconds,
                           int instances, long inboundTimeoutMillis, ServerLimits limits, List<String> allowedHosts,
                           boolean accessLog) {

  /** @param inboundTimeoutMillis the store's request timeout, which channel requests share */
  public static HttpSettings from(JsonObject http, long inboundTimeoutMillis) {
    int instances = http.getInteger("instances");
    return new HttpSettings(
        http.getString("host"),
        http.getInteger("port"),
        http.getLong("bodyLimitBytes"),
        http.getLong("channelBodyLimitBytes"),
        http.getLong("heartbeatSeconds"),
        instances > 0 ? instances : Runtime.getRuntime().availableProcessors(),
        inboundTimeoutMillis,
        ServerLimits.from("http", http, http.getLong("heartbeatSeconds")),
        http.getJsonArray("allowedHosts").stream().map(Object::toString).toList(),
        http.getBoolean("accessLog"));
  }
}
