package ark.broker.channel;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.net.ConnectException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Calls a channel's HTTP API. Every URL is built from a base URL in the configuration, never from a
 * question. A response that is not a success becomes a {@link DeliveryFailure} saying whether and when
 * to try again.
 */
public final class ApiClient {
  private final HttpClientAgent client;
  private final Clock clock;
  private final long timeoutMillis;

  ApiClient(Vertx vertx, Clock clock, long timeoutMillis) {
    this.client = vertx.createHttpClient(new HttpClientOptions()
        .setConnectTimeout((int) Math.min(timeoutMillis, Integer.MAX_VALUE)));
    this.clock = clock;
    this.timeoutMillis = timeoutMillis;
  }

  /**
   * The http(s) URL at {@code path} (its last part is the key in {@code section}), without a trailing
   * slash, to build a channel's calls on.
   */
  public static String baseUrl(JsonObject section, String path) {
    String url = section.getString(path.substring(path.lastIndexOf('.') + 1));
    URI uri;
    try {
      uri = url == null ? null : URI.create(url);
    } catch (IllegalArgumentException e) {
      uri = null;
    }
    if (uri == null || uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
      throw new IllegalArgumentException(path + " must be an absolute http or https URL, not '" + url + "'");
    }
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  /** The response, whatever its status; fails only when no response came (then it may or may not have taken effect). */
  public Future<ApiResponse> send(HttpMethod method, String url, MultiMap headers, Buffer body) {
    RequestOptions options = new RequestOptions()
        .setMethod(method)
        .setAbsoluteURI(url)
        .setHeaders(headers)
        .putHeader("User-Agent", "ark-broker")
        .setIdleTimeout(timeoutMillis);
    return client.request(options)
        .compose(request -> body == null ? request.send() : request.send(body))
        .compose(response -> response.body().map(received -> new ApiResponse(response.statusCode(), response.headers(), received)))
        .recover(failure -> Future.failedFuture(new DeliveryFailure(
            method + " " + origin(url) + " failed: " + failure.getMessage(), true, -1,
            !(failure instanceof ConnectException))));
  }

  /**
   * The failure a non-2xx response means: 408, 429 and 5xx are worth retrying (429 after its
   * {@code Retry-After}), other statuses are not.
   */
  public DeliveryFailure failureOf(String what, ApiResponse response) {
    int status = response.status();
    boolean retryable = status == 408 || status == 429 || status >= 500;
    return new DeliveryFailure(what + " answered HTTP " + status, retryable, retryAfterMillis(response.headers()),
        status != 429);
  }

  /** {@code Retry-After} as delay-seconds or as an HTTP date, in milliseconds from now; -1 if absent or unreadable. */
  public long retryAfterMillis(MultiMap headers) {
    String value = headers.get("Retry-After");
    if (value == null || value.isBlank()) {
      return -1;
    }
    try {
      return Math.max(0, Long.parseLong(value.trim()) * 1000);
    } catch (NumberFormatException notSeconds) {
      try {
        ZonedDateTime at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
        return Math.max(0, Duration.between(clock.instant(), at.toInstant()).toMillis());
      } catch (DateTimeParseException unreadable) {
        return -1;
      }
    }
  }

  Future<Void> close() {
    return client.close();
  }

  /** Scheme, host and port only: a webhook URL's path may itself be a secret. */
  private static String origin(String url) {
    URI uri = URI.create(url);
    return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort());
  }

  public record ApiResponse(int status, MultiMap headers, Buffer body) {
    public boolean ok() {
      return status >= 200 && status < 300;
    }

    /** The body as a JSON object, or an empty one if it is not one. */
    public JsonObject json() {
      try {
        Object value = body.length() == 0 ? null : body.toJsonValue();
        return value instanceof JsonObject object ? object : new JsonObject();
      } catch (DecodeException e) {
        return new JsonObject();
      }
    }
  }
}
