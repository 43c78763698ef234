package ark.broker.channel;

import ark.broker.question.Delivery;
import ark.broker.question.EventType;
import ark.broker.question.Question;
import io.vertx.core.Future;

import java.time.Instant;
import java.util.List;

/**
 * One kind of place where questions are shown to people (Slack, GitHub, a webhook). It knows which
 * channel names are its own and how to post, find and finish a post; {@link Dispatcher} decides when.
 * Calls fail with {@link DeliveryFailure}.
 */
public interface Channel {
  /** How long before a question's creation time to look for an earlier post of it: clocks of replicas differ. */
  long LOOK_BACK_SECONDS = 300;

  /** The destination a name from a question's {@code channels} means here, or null if the name is not this channel's or not configured. */
  Destination resolve(String name);

  /**
   * The destinations a name means for this question: a channel that reaches people one by one (email, Slack
   * direct messages) has one per recipient it can reach; empty if the name is not this channel's.
   */
  default List<Destination> resolve(String name, Question question) {
    Destination destination = resolve(name);
    return destination == null ? List.of() : List.of(destination);
  }

  /**
   * What a channel name asks of the channel {@code kind}: {@code fallback} for the bare kind ("slack"),
   * the rest for "kind:rest" ("slack:ops"), null for another channel's name or an empty fallback.
   */
  static String targetOf(String name, String kind, String fallback) {
    if (name.equals(kind)) {
      return fallback.isEmpty() ? null : fallback;
    }
    return name.startsWith(kind + ":") ? name.substring(kind.length() + 1) : null;
  }

  /** Milliseconds to leave between two calls for one destination (Slack allows about one message a second per channel). */
  long intervalMillis();

  /**
   * Whether a question that was never sent here and is already over is still sent (a webhook wants
   * outcomes; a chat does not want a question nobody can answer any more).
   */
  default boolean sendsFinished(Question question, Instant now) {
    return false;
  }

  /** The post this broker made earlier for the question there, found after a crash cut off its record; null if there is none. */
  Future<Delivery> findPost(Question question, Destination destination);

  /** Posts the question; the delivery to record. */
  Future<Delivery> post(Question question, Destination destination);

  /**
   * Shows where the question was posted how it ended (answered, cancelled, expired).
   *
   * @param unsure an earlier worker or attempt may have shown it already; a channel that cannot repeat
   *     this harmlessly looks first
   */
  Future<Void> showOutcome(Question question, Destination destination, Delivery posted, boolean unsure);

  /**
   * Tells people where the question was posted that it still waits ({@link EventType#REMINDED}) or was escalated
   * ({@link EventType#ESCALATED}): a reply in the post's thread where the channel has threads.
   *
   * @param unsure an earlier worker or attempt may have told them already; a channel that can look first does
   */
  Future<Void> showFollowUp(Question question, Destination destination, Delivery posted, EventType step, boolean unsure);
}
