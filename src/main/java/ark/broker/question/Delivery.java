package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;

/**
 * A record that a channel showed the question to people.
 *
 * @param channel the channel's name, as in the question's {@code channels}
 * @param ref where it was shown, in the channel's own terms (a Slack channel and timestamp, a GitHub comment)
 * @param label what to tell the asker, such as "Slack #ops"
 * @param outcome the final status the channel has since shown there (the answer, cancellation or
 *     expiry), or null while it still shows the question as open
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Delivery(String channel, String ref, String label, Instant at, QuestionStatus outcome) {

  @JsonCreator
  public Delivery {
  }

  public Delivery(String channel, String ref, String label, Instant at) {
    this(channel, ref, label, at, null);
  }

  /** The same record, noting that the channel now shows {@code shown} there. */
  public Delivery showing(QuestionStatus shown, Instant now) {
    return new Delivery(channel, ref, label, now, shown);
  }
}
