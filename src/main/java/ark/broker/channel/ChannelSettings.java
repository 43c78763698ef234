package ark.broker.channel;

import ark.broker.channel.email.EmailSettings;
import ark.broker.channel.github.GitHubSettings;
import ark.broker.channel.slack.SlackSettings;
import ark.broker.channel.webhook.WebhookSettings;
import ark.broker.reconcile.Backoff;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code channels} section of the configuration. A channel whose section says {@code enabled: false}
 * is null here: nothing is sent to it and its inbound requests get 404.
 *
 * @param onlyRecipientsMayAnswer whether answers from people the question is not for are refused (see {@link Answering})
 * @param ackTimeoutMillis an inbound request is acknowledged after this long even if its work goes on
 *     (Slack wants an answer within 3 seconds)
 * @param requestTimeoutMillis how long a call to a channel's API may stay silent before it counts as failed
 * @param resyncMillis how often every question is checked for deliveries due, to repair what a missed change left
 */
public record ChannelSettings(
    RecipientsOnly onlyRecipientsMayAnswer,
    long ackTimeoutMillis,
    long requestTimeoutMillis,
    long resyncMillis,
    Backoff backoff,
    List<RoutingRule> routes,
    Directory directory,
    SlackSettings slack,
    GitHubSettings github,
    WebhookSettings webhook,
    EmailSettings email) {

  public static ChannelSettings from(JsonObject channels) {
    List<RoutingRule> routes = new ArrayList<>();
    JsonArray rules = channels.getJsonArray("routes");
    for (int i = 0; i < rules.size(); i++) {
      routes.add(RoutingRule.from(rules.getJsonObject(i), "channels.routes[" + i + "]"));
    }
    return new ChannelSettings(
        RecipientsOnly.parse(channels.getValue("onlyRecipientsMayAnswer")),
        channels.getLong("ackTimeoutMillis"),
        channels.getLong("requestTimeoutMillis"),
        channels.getLong("resyncSeconds") * 1000,
        backoff(channels),
        List.copyOf(routes),
        Directory.from(channels.getJsonObject("directory")),
        enabled(channels, "slack") ? SlackSettings.from(channels.getJsonObject("slack")) : null,
        enabled(channels, "github") ? GitHubSettings.from(channels.getJsonObject("github")) : null,
        enabled(channels, "webhook") ? WebhookSettings.from(channels.getJsonObject("webhook")) : null,
        enabled(channels, "email") ? EmailSettings.from(channels.getJsonObject("email")) : null);
  }

  private static Backoff backoff(JsonObject channels) {
    try {
      return new Backoff(channels.getLong("retryBaseMillis"), channels.getLong("retryMaxMillis"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("channels.retryBaseMillis and channels.retryMaxMillis: " + e.getMessage(), e);
    }
  }

  private static boolean enabled(JsonObject channels, String name) {
    return channels.getJsonObject(name).getBoolean("enabled");
  }
}
