package ark.broker.channel;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Slack's Web API as far as the broker uses it: chat.postMessage, chat.update, chat.postEphemeral,
 * views.open, conversations.open (a direct conversation per user, {@code D} + the user id) and
 * conversations.history (with message metadata). Checks the bot token like Slack does.
 * Tests can make postMessage fail for a while, or hold the reply of a method (having done it) until released.
 */
public final class FakeSlack extends FakeService {
  static final String TOKEN = "xoxb-test-token";

  /** A message in a conversation, as Slack keeps it. */
  public record Message(String channel, String ts, JsonObject posted) {
    JsonObject metadata() {
      return posted.getJsonObject("metadata");
    }

    String questionId() {
      return metadata() == null ? null : metadata().getJsonObject("event_payload").getString("question_id");
    }
  }

  private final List<Message> messages = new CopyOnWriteArrayList<>();
  private final Deque<Reply> postFailures = new ConcurrentLinkedDeque<>();
  private final AtomicLong lastMicros = new AtomicLong();
  private volatile boolean failing;
  private volatile String heldMethod;
  private volatile CountDownLatch hold;

  private FakeSlack() throws IOException {
    super(null);
  }

  public static FakeSlack start() throws IOException {
    return new FakeSlack();
  }

  /** The next postMessage calls get these replies instead of posting. */
  void failNextPosts(Reply... replies) {
    postFailures.addAll(List.of(replies));
  }

  /** Every postMessage gets 500 until {@link #recover()}. */
  void failPosts() {
    failing = true;
  }

  void recover() {
    failing = false;
  }

  /** Calls of this method do their work but do not reply until {@link #release()}. */
  void hold(String method) {
    hold = new CountDownLatch(1);
    heldMethod = method;
  }

  void release() {
    CountDownLatch held = hold;
    hold = null;
    heldMethod = null;
    if (held != null) {
      held.countDown();
    }
  }

  public List<Message> messagesFor(String questionId) {
    return messages.stream().filter(m -> questionId.equals(m.questionId())).toList();
  }

  /** The replies in a message's thread, oldest first. */
  public List<Message> repliesTo(Message parent) {
    return messages.stream().filter(m -> m.channel().equals(parent.channel()) && parent.ts().equals(m.posted().getString("thread_ts")))
        .toList();
  }

  @Override
  Reply reply(Received request) {
    if (!("Bearer " + TOKEN).equals(request.header("Authorization"))) {
      return Reply.json(200, ok(false).put("error", "invalid_auth"));
    }
    String method = request.path().substring(request.path().lastIndexOf('/') + 1);
    return switch (method) {
      case "chat.postMessage" -> post(request.json());
      case "chat.update" -> update(request.json());
      case "conversations.history" -> history(request.query());
      case "conversations.open" -> open(request.json());
      case "chat.postEphemeral", "views.open" -> Reply.json(200, ok(true));
      default -> Reply.json(200, ok(false).put("error", "unknown_method"));
    };
  }

  @Override
  void beforeReplying(Received request, Reply reply) throws InterruptedException {
    CountDownLatch held = hold;
    if (held != null && request.path().endsWith("/" + heldMethod) && reply.status() == 200) {
      held.await(60, TimeUnit.SECONDS);
    }
  }

  private Reply post(JsonObject body) {
    if (failing) {
      return Reply.json(500, new JsonObject().put("error", "boom"));
    }
    Reply failure = postFailures.poll();
    if (failure != null) {
      return failure;
    }
    String channel = body.getString("channel");
    String thread = body.getString("thread_ts");
    if (thread != null && messages.stream().noneMatch(m -> m.channel().equals(channel) && m.ts().equals(thread))) {
      return Reply.json(200, ok(false).put("error", "thread_not_found"));
    }
    long micros = lastMicros.updateAndGet(last -> Math.max(last + 1, System.currentTimeMillis() * 1000));
    String ts = (micros / 1_000_000) + "." + String.format("%06d", micros % 1_000_000);
    messages.add(new Message(channel, ts, body));
    return Reply.json(200, ok(true).put("channel", channel).put("ts", ts).put("message", body.copy().put("ts", ts)));
  }

  /** Like Slack: one user id opens (or finds) the bot's direct conversation with them; several would be a group DM. */
  private static Reply open(JsonObject body) {
    String users = body.getString("users", "");
    if (!users.matches("[UW][A-Z0-9]+")) {
      return Reply.json(200, ok(false).put("error", users.isEmpty() ? "users_list_not_supplied" : "user_not_found"));
    }
    return Reply.json(200, ok(true).put("channel", new JsonObject().put("id", "D" + users)));
  }

  private Reply update(JsonObject body) {
    for (int i = 0; i < messages.size(); i++) {
      Message message = messages.get(i);
      if (message.channel().equals(body.getString("channel")) && message.ts().equals(body.getString("ts"))) {
        JsonObject updated = message.posted().copy().mergeIn(body);
        messages.set(i, new Message(message.channel(), message.ts(), updated));
        return Reply.json(200, ok(true).put("channel", message.channel()).put("ts", message.ts()));
      }
    }
    return Reply.json(200, ok(false).put("error", "message_not_found"));
  }

  private Reply history(Map<String, String> query) {
    boolean withMetadata = "true".equals(query.get("include_all_metadata"));
    double oldest = Double.parseDouble(query.getOrDefault("oldest", "0"));
    JsonArray found = new JsonArray();
    List<Message> newestFirst = new ArrayList<>(messages);
    Collections.reverse(newestFirst);
    for (Message message : newestFirst) {
      if (message.channel().equals(query.get("channel")) && Double.parseDouble(message.ts()) >= oldest) {
        JsonObject shown = new JsonObject().put("type", "message").put("ts", message.ts())
            .put("text", message.posted().getString("text"));
        if (withMetadata && message.metadata() != null) {
          shown.put("metadata", message.metadata());
        }
        found.add(shown);
      }
    }
    return Reply.json(200, ok(true).put("messages", found).put("has_more", false)
        .put("response_metadata", new JsonObject().put("next_cursor", "")));
  }

  private static JsonObject ok(boolean ok) {
    return new JsonObject().put("ok", ok);
  }
}
