package ark.broker.question;

import java.time.Instant;

/** A record that a channel showed the question to people: where ({@code ref}) and when. */
public record Delivery(String channel, String ref, Instant at) {
}
