package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;

/**
 * A record that a channel showed the question to people.
 *
 * @param channel the channel's name, as in the question's {@code channels}
 * @param ref where it was shown, in the channel's own terms (a Slack channel and timestamp, a GitHub comment)
 * @param label what to tell the asker, such as "Slack #ops"
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Delivery(String channel, String ref, String label, Instant at) {
}
