package ark.broker.channel.slack;

import ark.broker.channel.InboundProblem;
import ark.broker.question.Delivery;
import ark.broker.question.Question;
import io.vertx.core.json.JsonObject;

/**
 * A message in a Slack conversation, by the conversation's id and the message's {@code ts}. A Slack delivery's
 * ref is {@link #ref()}, so a click can be matched to the posts of its question.
 */
record SlackMessage(String conversation, String ts) {

  /** The message a click came from, or null if the payload names none (a click in a modal or an app home). */
  static SlackMessage clickedIn(JsonObject payload) {
    JsonObject container = payload.getJsonObject("container", new JsonObject());
    String conversation = container.getString("channel_id", payload.getJsonObject("channel", new JsonObject()).getString("id"));
    String ts = container.getString("message_ts", payload.getJsonObject("message", new JsonObject()).getString("ts"));
    return conversation == null || ts == null ? null : new SlackMessage(conversation, ts);
  }

  /** The message a delivery's ref names, or null if the ref is no {@code <conversation>/<ts>}. */
  static SlackMessage of(String ref) {
    int slash = ref == null ? -1 : ref.lastIndexOf('/');
    return slash <= 0 || slash == ref.length() - 1 ? null : new SlackMessage(ref.substring(0, slash), ref.substring(slash + 1));
  }

  String ref() {
    return conversation + "/" + ts;
  }

  /**
   * Nothing, if the broker posted the question as this message; a click on any other message (one posted for
   * another question, or by someone else) must not answer it.
   *
   * @param message the message, or null when the request came from none
   * @throws InboundProblem 403 otherwise
   */
  static void requirePostedAs(Question question, SlackMessage message) {
    boolean posted = message != null && question.deliveries().stream().anyMatch(delivery -> isSlack(delivery)
        && delivery.ref().equals(message.ref()));
    if (!posted) {
      throw new InboundProblem(403, "question " + question.id() + " was not posted to "
          + (message == null ? "the message this came from" : "Slack message " + message.ref()));
    }
  }

  private static boolean isSlack(Delivery delivery) {
    return delivery.channel().equals("slack") || delivery.channel().startsWith("slack:");
  }
}
