package ark.broker.channel.slack;

import ark.broker.channel.Answering;
import ark.broker.channel.ApiClient;
import ark.broker.channel.Channel;
import ark.broker.channel.DeliveryFailure;
import ark.broker.channel.Destination;
import ark.broker.channel.Directory;
import ark.broker.channel.Inbound;
import ark.broker.question.Delivery;
import ark.broker.question.EventType;
import ark.broker.question.Question;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Questions as Slack messages. A question names a conversation from {@code channels.slack.conversations}:
 * {@code slack:ops} (or {@code slack:#ops}) posts to the conversation configured as {@code ops};
 * plain {@code slack} posts to {@code channels.slack.defaultConversation}. Questions cannot name a
 * conversation id themselves, so they cannot make the bot post anywhere the configuration did not allow.
 * {@code slack:dm} (and plain {@code slack} when there is no default conversation) sends the question as a direct
 * message to the recipient, or to each member of the recipient team, whom the directory gives a Slack id
 * ({@code conversations.open}, then {@code chat.postMessage} there); it is recorded per person as
 * {@code slack:dm:<user name>}. A delivery's ref is {@code <conversation id>/<message ts>}.
 */
public final class SlackChannel implements Channel {
  private static final int HISTORY_PAGES = 20;
  static final String DIRECT = "dm";
  private static final String DIRECT_KEY = "slack:dm:";

  private final SlackApi api;
  private final SlackSettings settings;
  private final Directory directory;
  private final Clock clock;

  public SlackChannel(ApiClient client, SlackSettings settings, Directory directory, Clock clock) {
    this.api = new SlackApi(client, settings);
    this.settings = settings;
    this.directory = directory;
    this.clock = clock;
  }

  /** What takes Slack's requests (clicks, forms) for the questions this channel posts. */
  public Inbound interactions(Answering answering) {
    return new SlackInteractions(new SlackSignature(settings.signingSecret(), clock), api, answering, directory);
  }

  @Override
  public Destination resolve(String name) {
    String conversation = Channel.targetOf(name, "slack", settings.defaultConversation());
    if (conversation == null) {
      return null;
    }
    conversation = conversation.startsWith("#") ? conversation.substring(1) : conversation;
    String id = settings.conversations().get(conversation);
    return id == null ? null : new Destination(this, name, "slack:" + id, "Slack #" + conversation, id);
  }

  @Override
  public List<Destination> resolve(String name, Question question) {
    boolean direct = name.equals("slack:" + DIRECT) || name.equals("slack") && settings.defaultConversation().isEmpty();
    if (!direct) {
      return Channel.super.resolve(name, question);
    }
    return directory.reachEachAsked(question, directory::slackUserOf, (person, userId) -> {
      String user = Directory.userName(person);
      return new Destination(this, "slack:" + DIRECT + ":" + user, DIRECT_KEY + userId, "Slack DM to " + user, userId);
    });
  }

  @Override
  public long intervalMillis() {
    return settings.intervalMillis();
  }

  @Override
  public Future<Delivery> post(Question question, Destination destination) {
    return conversationOf(destination).compose(conversation -> {
      JsonObject message = SlackBlocks.question(question, directory).put("channel", conversation);
      return api.post("chat.postMessage", message)
          .map(posted -> delivery(destination, posted.getString("channel", conversation), posted.getString("ts")));
    });
  }

  @Override
  public Future<Delivery> findPost(Question question, Destination destination) {
    return conversationOf(destination).compose(conversation -> findPost(question, destination, conversation, null, 1));
  }

  /** The conversation a destination posts in: a configured one, or the bot's direct conversation with a person, opened (or found) for it. */
  private Future<String> conversationOf(Destination destination) {
    if (!destination.key().startsWith(DIRECT_KEY)) {
      return Future.succeededFuture(destination.target());
    }
    return api.post("conversations.open", new JsonObject().put("users", destination.target())).compose(opened -> {
      String id = opened.getJsonObject("channel", new JsonObject()).getString("id");
      return id == null ? Future.failedFuture(new DeliveryFailure("Slack conversations.open returned no channel id", false, -1, false))
          : Future.succeededFuture(id);
    });
  }

  private Future<Delivery> findPost(Question question, Destination destination, String conversation, String cursor, int page) {
    Map<String, String> parameters = new LinkedHashMap<>();
    parameters.put("channel", conversation);
    parameters.put("oldest", Long.toString(question.createdAt().getEpochSecond() - LOOK_BACK_SECONDS));
    parameters.put("include_all_metadata", "true");
    parameters.put("limit", "200");
    if (cursor != null) {
      parameters.put("cursor", cursor);
    }
    return api.get("conversations.history", parameters).compose(history -> {
      JsonArray messages = history.getJsonArray("messages", new JsonArray());
      for (int i = 0; i < messages.size(); i++) {
        JsonObject message = messages.getJsonObject(i);
        JsonObject metadata = message.getJsonObject("metadata", new JsonObject());
        if (SlackBlocks.METADATA_TYPE.equals(metadata.getString("event_type"))
            && question.id().equals(metadata.getJsonObject("event_payload", new JsonObject()).getString("question_id"))) {
          return Future.succeededFuture(delivery(destination, conversation, message.getString("ts")));
        }
      }
      String next = history.getJsonObject("response_metadata", new JsonObject()).getString("next_cursor", "");
      return next.isEmpty() || page == HISTORY_PAGES ? Future.succeededFuture() : findPost(question, destination, conversation, next, page + 1);
    });
  }

  @Override
  public Future<Void> showOutcome(Question question, Destination destination, Delivery posted, boolean unsure) {
    SlackMessage message = SlackMessage.of(posted.ref());
    JsonObject update = SlackBlocks.outcome(question, directory)
        .put("channel", message.conversation())
        .put("ts", message.ts());
    return api.post("chat.update", update).<Void>mapEmpty().recover(failure -> {
      // A message someone deleted has nothing left to update.
      return DeliveryFailure.isServiceError(failure, "message_not_found") ? Future.succeededFuture() : Future.failedFuture(failure);
    });
  }

  /** A reply in the question's thread. Slack cannot be searched for it cheaply: after a crash between this reply and its record, people may read it twice. */
  @Override
  public Future<Void> showFollowUp(Question question, Destination destination, Delivery posted, EventType step, boolean unsure) {
    SlackMessage message = SlackMessage.of(posted.ref());
    JsonObject reply = new JsonObject()
        .put("channel", message.conversation())
        .put("thread_ts", message.ts())
        .put("text", SlackBlocks.followUp(question, step, directory));
    return api.post("chat.postMessage", reply).mapEmpty();
  }

  private Delivery delivery(Destination destination, String conversation, String ts) {
    return new Delivery(destination.name(), new SlackMessage(conversation, ts).ref(), destination.label(), clock.instant().truncatedTo(ChronoUnit.MILLIS));
  }
}
