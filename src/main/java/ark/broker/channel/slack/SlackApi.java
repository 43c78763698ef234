package ark.broker.channel.slack;

import ark.broker.channel.ApiClient;
import ark.broker.channel.ApiClient.ApiResponse;
import ark.broker.channel.DeliveryFailure;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** Slack's Web API ({@code channels.slack.apiBaseUrl}), with the bot token. A reply without {@code ok: true} is a failure. */
record SlackApi(ApiClient client, SlackSettings settings) {
  /** Slack's own trouble, worth another try; it may have done the call before failing. */
  private static final Set<String> PASSING_ERRORS = Set.of("internal_error", "fatal_error", "service_unavailable", "request_timeout");

  /** A write method ({@code chat.postMessage}, {@code chat.update}, ...) with a JSON body. */
  Future<JsonObject> post(String method, JsonObject body) {
    MultiMap headers = headers().add("Content-Type", "application/json; charset=utf-8");
    return client.send(HttpMethod.POST, settings.apiBaseUrl() + "/" + method, headers, body.toBuffer())
        .compose(response -> result(method, response));
  }

  /** A read method ({@code conversations.history}) with query parameters. */
  Future<JsonObject> get(String method, Map<String, String> parameters) {
    String query = parameters.entrySet().stream()
        .map(entry -> entry.getKey() + "=" + URLEncoder.encode(entry.getValue(), StandardCharsets.UTF_8))
        .collect(Collectors.joining("&"));
    return client.send(HttpMethod.GET, settings.apiBaseUrl() + "/" + method + "?" + query, headers(), null)
        .compose(response -> result(method, response));
  }

  private MultiMap headers() {
    return MultiMap.caseInsensitiveMultiMap().add("Authorization", "Bearer " + settings.botToken().reveal());
  }

  private Future<JsonObject> result(String method, ApiResponse response) {
    if (!response.ok()) {
      return Future.failedFuture(client.failureOf("Slack " + method, response));
    }
    JsonObject json = response.json();
    if (json.getBoolean("ok", false)) {
      return Future.succeededFuture(json);
    }
    String error = json.getString("error", "no error given");
    if (error.equals("ratelimited")) {
      return Future.failedFuture(new DeliveryFailure("Slack " + method + " is rate limited", true,
          client.retryAfterMillis(response.headers()), false));
    }
    boolean passing = PASSING_ERRORS.contains(error);
    return Future.failedFuture(new DeliveryFailure("Slack " + method + " failed: " + error, passing, -1, passing, error));
  }
}
