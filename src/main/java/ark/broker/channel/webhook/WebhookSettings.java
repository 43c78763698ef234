package ark.broker.channel.webhook;

import ark.broker.channel.ApiClient;
import ark.broker.channel.Secret;
import io.vertx.core.json.JsonObject;

/** Settings of the generic webhook: where every change of its questions is posted, and the key that signs it. */
public record WebhookSettings(String url, Secret secret, long intervalMillis) {

  public static WebhookSettings from(JsonObject webhook) {
    return new WebhookSettings(
        ApiClient.baseUrl(webhook, "channels.webhook.url"),
        Secret.required(webhook, "channels.webhook.secret"),
        webhook.getLong("intervalMillis"));
  }
}
