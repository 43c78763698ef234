package ark.broker.channel.slack;

import ark.broker.channel.ApiClient;
import ark.broker.channel.Secret;
import io.vertx.core.json.JsonObject;

import java.util.LinkedHashMap;
import java.util.Map;

/** Settings of the Slack app: its Web API, bot token, signing secret and the conversations questions may name. */
public record SlackSettings(String apiBaseUrl, Secret botToken, Secret signingSecret,
                            Map<String, String> conversations, String defaultConversation, long intervalMillis) {

  public static SlackSettings from(JsonObject slack) {
    Map<String, String> conversations = new LinkedHashMap<>();
    slack.getJsonObject("conversations").forEach(entry -> conversations.put(entry.getKey(), String.valueOf(entry.getValue())));
    if (conversations.containsKey(SlackChannel.DIRECT)) {
      throw new IllegalArgumentException("channels.slack.conversations may not name a conversation '" + SlackChannel.DIRECT
          + "': slack:" + SlackChannel.DIRECT + " sends direct messages to the recipients");
    }
    String defaultConversation = slack.getString("defaultConversation");
    if (!defaultConversation.isEmpty() && !conversations.containsKey(defaultConversation)) {
      throw new IllegalArgumentException("channels.slack.defaultConversation '" + defaultConversation
          + "' is not one of channels.slack.conversations " + conversations.keySet());
    }
    return new SlackSettings(
        ApiClient.baseUrl(slack, "channels.slack.apiBaseUrl"),
        Secret.required(slack, "channels.slack.botToken"),
        Secret.required(slack, "channels.slack.signingSecret"),
        Map.copyOf(conversations),
        defaultConversation,
        slack.getLong("intervalMillis"));
  }
}
