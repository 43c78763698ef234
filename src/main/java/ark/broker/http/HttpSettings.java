package ark.broker.http;

import io.vertx.core.json.JsonObject;

/**
 * The REST surface's settings.
 *
 * @param bodyLimitBytes larger request bodies get 413 before they are read
 * @param channelBodyLimitBytes the same for requests that Slack, GitHub and other channels send
 * @param heartbeatSeconds idle watch streams get a comment this often, so proxies keep them open
 * @param storeTimeoutMillis how long a request waits for the store before answering 503
 */
public record HttpSettings(String host, int port, long bodyLimitBytes, long channelBodyLimitBytes, long heartbeatSeconds,
                           long storeTimeoutMillis) {

  public static HttpSettings from(JsonObject http) {
    return new HttpSettings(
        http.getString("host", "127.0.0.1"),
        http.getInteger("port", 8080),
        http.getLong("bodyLimitBytes", 1_048_576L),
        http.getLong("channelBodyLimitBytes", 1_048_576L),
        http.getLong("heartbeatSeconds", 15L),
        http.getLong("storeTimeoutMillis", 10_000L));
  }
}
