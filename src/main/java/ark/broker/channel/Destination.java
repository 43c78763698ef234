package ark.broker.channel;

/**
 * A concrete place a question goes: one Slack conversation, one GitHub issue, the webhook.
 *
 * @param name the channel name as the question (or a routing rule) wrote it; deliveries are recorded under it
 * @param key the place itself, whatever name led to it: one queue and one rate limit per key
 * @param label what the asker is told ("Slack #ops")
 * @param target the channel's own address of the place (a Slack conversation id, {@code owner/repo#12})
 */
public record Destination(Channel channel, String name, String key, String label, String target) {
}
