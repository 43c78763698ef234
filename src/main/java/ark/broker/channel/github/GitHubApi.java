package ark.broker.channel.github;

import ark.broker.channel.ApiClient;
import ark.broker.channel.ApiClient.ApiResponse;
import ark.broker.channel.DeliveryFailure;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** GitHub's REST API ({@code channels.github.apiBaseUrl}), with the token; issue comments are all the broker uses. */
record GitHubApi(ApiClient client, GitHubSettings settings, Clock clock) {
  private static final int PER_PAGE = 100;

  /** Comments on the issue; the created comment's JSON. */
  Future<JsonObject> comment(IssueRef issue, String body) {
    MultiMap headers = headers().add("Content-Type", "application/json");
    return client.send(HttpMethod.POST, settings.apiBaseUrl() + issue.commentsPath(), headers,
            new JsonObject().put("body", body).toBuffer())
        .compose(response -> response.ok()
            ? Future.succeededFuture(response.json())
            : Future.failedFuture(failureOf("GitHub comment on " + issue, response)));
  }

  /** One page (from 1) of the issue's comments updated since {@code since}, oldest first. */
  Future<JsonArray> comments(IssueRef issue, Instant since, int page) {
    String url = settings.apiBaseUrl() + issue.commentsPath() + "?since=" + since.truncatedTo(ChronoUnit.SECONDS)
        + "&per_page=" + PER_PAGE + "&page=" + page;
    return client.send(HttpMethod.GET, url, headers(), null).compose(response -> {
      if (!response.ok()) {
        return Future.failedFuture(failureOf("GitHub comments of " + issue, response));
      }
      Object value = response.body().length() == 0 ? null : response.body().toJsonValue();
      return Future.succeededFuture(value instanceof JsonArray array ? array : new JsonArray());
    });
  }

  static int perPage() {
    return PER_PAGE;
  }

  private MultiMap headers() {
    return MultiMap.caseInsensitiveMultiMap()
        .add("Authorization", "Bearer " + settings.token().reveal())
        .add("Accept", "application/vnd.github+json")
        .add("X-GitHub-Api-Version", "2022-11-28");
  }

  /**
   * GitHub signals rate limits two ways: 429 or 403 with {@code Retry-After} (secondary limits), and 403
   * with {@code x-ratelimit-remaining: 0} until {@code x-ratelimit-reset} (the hourly quota).
   */
  private DeliveryFailure failureOf(String what, ApiResponse response) {
    MultiMap headers = response.headers();
    if (response.status() == 403 || response.status() == 429) {
      long retryAfter = client.retryAfterMillis(headers);
      if (retryAfter < 0 && "0".equals(headers.get("x-ratelimit-remaining")) && headers.get("x-ratelimit-reset") != null) {
        try {
          retryAfter = Math.max(0, Long.parseLong(headers.get("x-ratelimit-reset")) * 1000 - clock.millis());
        } catch (NumberFormatException unreadable) {
          retryAfter = -1;
        }
      }
      if (retryAfter >= 0 || response.status() == 429) {
        return new DeliveryFailure(what + " is rate limited (HTTP " + response.status() + ")", true, retryAfter, false);
      }
    }
    return client.failureOf(what, response);
  }
}
