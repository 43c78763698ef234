package ark.broker.channel;

import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.function.Predicate;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import static org.assertj.core.api.Assertions.assertThat;

/** Configuration pointing a broker at the fakes, and requests signed exactly the way Slack and GitHub sign theirs. */
public final class ChannelTesting {
  static final String SLACK_SECRET = secretFor("slack");
  static final String GITHUB_SECRET = secretFor("github");
  static final String WEBHOOK_SECRET = secretFor("webhook");
  static final String OPS = "C0OPS";
  static final String JOHN_SLACK = "U0JOHN";
  static final String JOHN_GITHUB = "johndoe";

  private ChannelTesting() {
  }

  private static String secretFor(String channel) {
    return channel + "-secret-for-tests";
  }

  /** All three channels on, pointing at the fakes (any may be null: that channel stays off), with quick retries. */
  public static JsonObject config(FakeSlack slack, FakeGitHub github, FakeService webhook) {
    JsonObject channels = new JsonObject()
        .put("retryBaseMillis", 100)
        .put("retryMaxMillis", 1000)
        .put("directory", new JsonObject()
            .put("users", new JsonObject().put("john.doe", new JsonObject().put("slack", JOHN_SLACK).put("github", JOHN_GITHUB)))
            .put("teams", new JsonObject().put("ops", new JsonArray().add("john.doe"))));
    if (slack != null) {
      channels.put("slack", new JsonObject().put("enabled", true).put("apiBaseUrl", slack.baseUrl() + "/api")
          .put("botToken", FakeSlack.TOKEN).put("signingSecret", SLACK_SECRET)
          .put("conversations", new JsonObject().put("ops", OPS).put("dev", "C0DEV")).put("defaultConversation", "ops")
          .put("intervalMillis", 20));
    }
    if (github != null) {
      channels.put("github", new JsonObject().put("enabled", true).put("apiBaseUrl", github.baseUrl())
          .put("token", FakeGitHub.TOKEN).put("webhookSecret", GITHUB_SECRET).put("intervalMillis", 20));
    }
    if (webhook != null) {
      channels.put("webhook", new JsonObject().put("enabled", true).put("url", webhook.baseUrl() + "/hooks/ark")
          .put("secret", WEBHOOK_SECRET));
    }
    return new JsonObject().put("channels", channels);
  }

  /** Polls the question until it satisfies {@code until}. */
  static JsonObject awaitQuestion(TestBroker broker, String id, Predicate<JsonObject> until) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    JsonObject question = null;
    while (Instant.now().isBefore(deadline)) {
      question = broker.get("/questions/" + id).json();
      if (until.test(question)) {
        return question;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("question never got there: " + question);
  }

  /** The question's delivery record for a channel name, or null. */
  public static JsonObject delivery(JsonObject question, String channel) {
    JsonArray deliveries = question.getJsonArray("deliveries", new JsonArray());
    for (int i = 0; i < deliveries.size(); i++) {
      if (deliveries.getJsonObject(i).getString("channel").equals(channel)) {
        return deliveries.getJsonObject(i);
      }
    }
    return null;
  }

  /** Who the question's history says answered it ({@code broker} must be allowed to read the history), or null. */
  public static JsonObject whoAnswered(TestBroker broker, String id) throws Exception {
    JsonArray items = broker.get("/questions/" + id + "/events").json().getJsonArray("items");
    return items.stream().map(JsonObject.class::cast).filter(item -> item.getString("type").equals("question_answered"))
        .map(item -> item.getJsonObject("by")).findFirst().orElse(null);
  }

  /** Asserts that the question's history says {@code person} answered it themselves, in a channel, as {@code account}. */
  static void assertAnsweredInChannel(TestBroker admin, String id, String person, String account) throws Exception {
    JsonObject by = whoAnswered(admin, id);
    assertThat(by.getString("principal")).isEqualTo(person);
    assertThat(by.getString("kind")).isEqualTo("human");
    assertThat(by.getString("method")).isEqualTo("channel");
    assertThat(by.getString("userAgent")).isEqualTo(account);
  }

  static String hmacHex(String secret, String message) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    return HexFormat.of().formatHex(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
  }

  /** An interactivity request as Slack sends it: form-encoded payload, v0 signature over {@code v0:<ts>:<body>}. */
  static Response slack(TestBroker broker, JsonObject payload, long timestamp, String secret) throws Exception {
    String body = "payload=" + URLEncoder.encode(payload.encode(), StandardCharsets.UTF_8);
    HttpRequest.Builder request = HttpRequest.newBuilder(broker.base.resolve("/channels/slack/events"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (secret != null) {
      request.header("X-Slack-Request-Timestamp", Long.toString(timestamp))
          .header("X-Slack-Signature", "v0=" + hmacHex(secret, "v0:" + timestamp + ":" + body));
    }
    return broker.send(request);
  }

  public static Response slack(TestBroker broker, JsonObject payload) throws Exception {
    return slack(broker, payload, Instant.now().getEpochSecond(), SLACK_SECRET);
  }

  /** A click on the button whose value is {@code value}, as Slack posts it. */
  public static JsonObject click(FakeSlack.Message message, String value, String userId) {
    JsonArray blocks = message.posted().getJsonArray("blocks");
    for (int i = 0; i < blocks.size(); i++) {
      JsonObject block = blocks.getJsonObject(i);
      JsonArray elements = block.getJsonArray("elements", new JsonArray());
      for (int j = 0; "actions".equals(block.getString("type")) && j < elements.size(); j++) {
        JsonObject button = elements.getJsonObject(j);
        if (value.equals(button.getString("value"))) {
          return new JsonObject()
              .put("type", "block_actions")
              .put("user", new JsonObject().put("id", userId).put("username", "someone").put("team_id", "T0TEAM"))
              .put("api_app_id", "A0APP")
              .put("team", new JsonObject().put("id", "T0TEAM"))
              .put("container", new JsonObject().put("type", "message").put("message_ts", message.ts())
                  .put("channel_id", message.channel()).put("is_ephemeral", false))
              .put("trigger_id", "1234.5678.trigger")
              .put("channel", new JsonObject().put("id", message.channel()))
              .put("message", message.posted().copy().put("ts", message.ts()))
              .put("actions", new JsonArray().add(new JsonObject()
                  .put("type", "button")
                  .put("block_id", block.getString("block_id"))
                  .put("action_id", button.getString("action_id"))
                  .put("text", button.getJsonObject("text"))
                  .put("value", button.getString("value"))
                  .put("action_ts", "1700000000.000200")));
        }
      }
    }
    throw new AssertionError("no button with value " + value + " in " + blocks);
  }

  public static JsonObject submission(JsonObject view, String userId, String answer) {
    return new JsonObject()
        .put("type", "view_submission")
        .put("user", new JsonObject().put("id", userId))
        .put("trigger_id", "1234.5678.trigger2")
        .put("view", new JsonObject()
            .put("id", "V0VIEW")
            .put("type", "modal")
            .put("callback_id", view.getString("callback_id"))
            .put("private_metadata", view.getString("private_metadata"))
            .put("state", new JsonObject().put("values", new JsonObject().put("ark_response",
                new JsonObject().put("ark_text", new JsonObject().put("type", "plain_text_input").put("value", answer))))));
  }

  /** A webhook delivery as GitHub sends it: JSON body, {@code X-Hub-Signature-256: sha256=<hex>}. */
  static Response github(TestBroker broker, String event, String deliveryId, String body, String secret) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(broker.base.resolve("/channels/github/events"))
        .header("Content-Type", "application/json")
        .header("X-GitHub-Event", event)
        .header("X-GitHub-Delivery", deliveryId)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (secret != null) {
      request.header("X-Hub-Signature-256", "sha256=" + hmacHex(secret, body));
    }
    return broker.send(request);
  }

  /** An {@code issue_comment} "created" payload, trimmed to the fields GitHub always sends that matter here. */
  static String issueComment(String repository, long issue, String login, String body) {
    return new JsonObject()
        .put("action", "created")
        .put("issue", new JsonObject().put("number", issue).put("title", "Release 1.2"))
        .put("comment", new JsonObject().put("id", 77).put("body", body)
            .put("user", new JsonObject().put("login", login).put("type", "User")))
        .put("repository", new JsonObject().put("full_name", repository))
        .put("sender", new JsonObject().put("login", login))
        .encode();
  }
}
