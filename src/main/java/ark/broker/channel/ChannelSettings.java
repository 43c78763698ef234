package ark.broker.channel;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code channels} section of the configuration. A channel whose section says {@code enabled: false}
 * (the default) is null here: nothing is sent to it and its inbound requests get 404.
 *
 * @param onlyRecipientsMayAnswer refuse answers from people the question is not addressed to (see {@link Directory})
 * @param ackTimeoutMillis an inbound request is acknowledged after this long even if its work goes on
 *     (Slack wants an answer within 3 seconds)
 * @param requestTimeoutMillis how long a call to a channel's API may stay silent before it counts as failed
 */
public record ChannelSettings(
    boolean onlyRecipientsMayAnswer,
    long ackTimeoutMillis,
    long requestTimeoutMillis,
    Backoff backoff,
    List<RoutingRule> routes,
    Directory directory,
    SlackSettings slack,
    GitHubSettings github,
    WebhookSettings webhook) {

  public static ChannelSettings from(JsonObject channels) {
    List<RoutingRule> routes = new ArrayList<>();
    JsonArray rules = channels.getJsonArray("routes", new JsonArray());
    for (int i = 0; i < rules.size(); i++) {
      routes.add(RoutingRule.from(rules.getJsonObject(i), "channels.routes[" + i + "]"));
    }
    return new ChannelSettings(
        channels.getBoolean("onlyRecipientsMayAnswer", false),
        channels.getLong("ackTimeoutMillis", 2500L),
        channels.getLong("requestTimeoutMillis", 10_000L),
        new Backoff(channels.getLong("retryBaseMillis", 1000L), channels.getLong("retryMaxMillis", 300_000L)),
        List.copyOf(routes),
        Directory.from(channels.getJsonObject("directory", new JsonObject())),
        enabled(channels, "slack") ? SlackSettings.from(channels.getJsonObject("slack")) : null,
        enabled(channels, "github") ? GitHubSettings.from(channels.getJsonObject("github")) : null,
        enabled(channels, "webhook") ? WebhookSettings.from(channels.getJsonObject("webhook")) : null);
  }

  private static boolean enabled(JsonObject channels, String name) {
    JsonObject section = channels.getJsonObject(name);
    return section != null && section.getBoolean("enabled", false);
  }

  /** Settings of the Slack app: its Web API, bot token, signing secret and the conversations questions may name. */
  public record SlackSettings(String apiBaseUrl, Secret botToken, Secret signingSecret,
                              Map<String, String> conversations, String defaultConversation, long intervalMillis) {
    static SlackSettings from(JsonObject slack) {
      Map<String, String> conversations = new LinkedHashMap<>();
      slack.getJsonObject("conversations", new JsonObject())
          .forEach(entry -> conversations.put(entry.getKey(), String.valueOf(entry.getValue())));
      String defaultConversation = slack.getString("defaultConversation", "");
      if (!defaultConversation.isEmpty() && !conversations.containsKey(defaultConversation)) {
        throw new IllegalArgumentException("channels.slack.defaultConversation '" + defaultConversation
            + "' is not one of channels.slack.conversations " + conversations.keySet());
      }
      return new SlackSettings(
          httpUrl(slack, "channels.slack.apiBaseUrl", "https://slack.com/api"),
          requiredSecret(slack, "channels.slack.botToken"),
          requiredSecret(slack, "channels.slack.signingSecret"),
          Map.copyOf(conversations),
          defaultConversation,
          slack.getLong("intervalMillis", 1000L));
    }
  }

  /** Settings of GitHub: its REST API, token, webhook secret and the repositories questions may name. */
  public record GitHubSettings(String apiBaseUrl, Secret token, Secret webhookSecret, List<String> repositories,
                               String defaultIssue, long intervalMillis, int rememberDeliveries) {
    static GitHubSettings from(JsonObject github) {
      List<String> repositories = new ArrayList<>();
      github.getJsonArray("repositories", new JsonArray()).forEach(repository -> repositories.add(String.valueOf(repository)));
      String defaultIssue = github.getString("defaultIssue", "");
      if (!defaultIssue.isEmpty() && IssueRef.parse(defaultIssue) == null) {
        throw new IllegalArgumentException("channels.github.defaultIssue must look like owner/repo#123, not '" + defaultIssue + "'");
      }
      return new GitHubSettings(
          httpUrl(github, "channels.github.apiBaseUrl", "https://api.github.com"),
          requiredSecret(github, "channels.github.token"),
          requiredSecret(github, "channels.github.webhookSecret"),
          List.copyOf(repositories),
          defaultIssue,
          github.getLong("intervalMillis", 1000L),
          github.getInteger("rememberDeliveries", 10_000));
    }
  }

  /** Settings of the generic webhook: where every change of its questions is posted, and the key that signs it. */
  public record WebhookSettings(String url, Secret secret, long intervalMillis) {
    static WebhookSettings from(JsonObject webhook) {
      return new WebhookSettings(
          httpUrl(webhook, "channels.webhook.url", ""),
          requiredSecret(webhook, "channels.webhook.secret"),
          webhook.getLong("intervalMillis", 0L));
    }
  }

  private static Secret requiredSecret(JsonObject section, String path) {
    Secret secret = new Secret(section.getString(path.substring(path.lastIndexOf('.') + 1), ""));
    if (secret.isEmpty()) {
      throw new IllegalArgumentException(path + " must be set when the channel is enabled");
    }
    return secret;
  }

  private static String httpUrl(JsonObject section, String path, String fallback) {
    String url = section.getString(path.substring(path.lastIndexOf('.') + 1), fallback);
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      uri = null;
    }
    if (uri == null || uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
      throw new IllegalArgumentException(path + " must be an absolute http or https URL, not '" + url + "'");
    }
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
