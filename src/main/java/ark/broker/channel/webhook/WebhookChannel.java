package ark.broker.channel.webhook;

import ark.broker.channel.ApiClient;
import ark.broker.channel.Channel;
import ark.broker.channel.Destination;
import ark.broker.channel.Hmac;
import ark.broker.question.Delivery;
import ark.broker.question.EventType;
import ark.broker.question.Question;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Every question routed to {@code webhook} is POSTed to {@code channels.webhook.url} as JSON when it is
 * asked and again when it ends: {@code {"id","type","question"}}, where {@code id} (also the
 * {@code X-Ark-Event-Id} header) is the same on every retry of one event, so receivers can drop
 * repeats. {@code X-Ark-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">}, keyed with
 * {@code channels.webhook.secret}. People answer through the REST API. A delivery's ref is the id of
 * the first event sent.
 */
public final class WebhookChannel implements Channel {
  private static final String NAME = "webhook";
  private static final Duration FINISHED_WITHIN = Duration.ofHours(1);

  private final ApiClient client;
  private final WebhookSettings settings;
  private final Clock clock;

  public WebhookChannel(ApiClient client, WebhookSettings settings, Clock clock) {
    this.client = client;
    this.settings = settings;
    this.clock = clock;
  }

  @Override
  public Destination resolve(String name) {
    return name.equals(NAME) ? new Destination(this, NAME, NAME, NAME, settings.url()) : null;
  }

  @Override
  public long intervalMillis() {
    return settings.intervalMillis();
  }

  /**
   * Only what ended within the last hour: the outcome of a question whose first event could not be sent
   * before it ended (the receiver was down, the broker restarted), without replaying the whole history
   * to a webhook that was enabled on a broker that already has one.
   */
  @Override
  public boolean sendsFinished(Question question, Instant now) {
    return question.updatedAt().isAfter(now.minus(FINISHED_WITHIN));
  }

  @Override
  public Future<Delivery> findPost(Question question, Destination destination) {
    return Future.succeededFuture(); // receivers drop repeats by event id, so sending again is harmless
  }

  /** Sends the question as it is now: asked if pending, else straight to how it ended. */
  @Override
  public Future<Delivery> post(Question question, Destination destination) {
    EventType type = EventType.leadingTo(question.outcome().status());
    return send(question, type).map(sent -> new Delivery(destination.name(), eventId(question, type), destination.label(),
        clock.instant().truncatedTo(ChronoUnit.MILLIS), question.isPending() ? null : question.outcome().status(), null, null));
  }

  @Override
  public Future<Void> showOutcome(Question question, Destination destination, Delivery posted, boolean unsure) {
    return send(question, EventType.leadingTo(question.outcome().status()));
  }

  /** The event as it happened ({@code question_reminded}, {@code question_escalated}); receivers drop repeats by event id. */
  @Override
  public Future<Void> showFollowUp(Question question, Destination destination, Delivery posted, EventType step, boolean unsure) {
    return send(question, step);
  }

  private Future<Void> send(Question question, EventType type) {
    String id = eventId(question, type);
    ObjectNode event = QuestionJson.MAPPER.createObjectNode()
        .put("id", id)
        .put("type", type.wireName());
    event.set("question", QuestionJson.MAPPER.valueToTree(question));
    byte[] body;
    try {
      body = QuestionJson.MAPPER.writeValueAsBytes(event);
    } catch (JsonProcessingException e) {
      return Future.failedFuture(e);
    }
    String timestamp = Long.toString(clock.instant().getEpochSecond());
    String signature = Hmac.sha256Hex(settings.secret(), (timestamp + ".").getBytes(StandardCharsets.UTF_8), body);
    MultiMap headers = MultiMap.caseInsensitiveMultiMap()
        .add("Content-Type", "application/json")
        .add("X-Ark-Event", type.wireName())
        .add("X-Ark-Event-Id", id)
        .add("X-Ark-Signature", "t=" + timestamp + ",v1=" + signature);
    return client.send(HttpMethod.POST, settings.url(), headers, Buffer.buffer(body)).compose(response -> response.ok()
        ? Future.<Void>succeededFuture()
        : Future.failedFuture(client.failureOf("webhook " + type.wireName() + " for " + question.id(), response)));
  }

  private static String eventId(Question question, EventType type) {
    return question.id() + ":" + type.wireName();
  }
}
