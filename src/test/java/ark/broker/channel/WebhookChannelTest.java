package ark.broker.channel;

import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;

import static ark.broker.channel.ChannelTesting.WEBHOOK_SECRET;
import static ark.broker.channel.ChannelTesting.awaitQuestion;
import static ark.broker.channel.ChannelTesting.delivery;
import static org.assertj.core.api.Assertions.assertThat;

/** Every change of a question routed to the webhook, POSTed signed to a receiver on loopback. */
class WebhookChannelTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir
  static Path dataDir;
  static final Deque<FakeService.Reply> replies = new ConcurrentLinkedDeque<>();
  static FakeService receiver;
  static TestBroker broker;

  @BeforeAll
  static void start() throws Exception {
    receiver = new FakeService(request -> {
      FakeService.Reply scripted = replies.poll();
      return scripted != null ? scripted : FakeService.Reply.json(200, new JsonObject().put("received", true));
    });
    JsonObject config = ChannelTesting.config(null, null, receiver);
    config.getJsonObject("channels").put("routes", new JsonArray()
        .add(new JsonObject().put("recipient", "ark://teams/release").put("channels", new JsonArray().add("webhook"))));
    broker = TestBroker.start(dataDir, config);
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
    receiver.close();
  }

  /** Checks X-Ark-Signature the way the README tells receivers to. */
  private static boolean signedByTheBroker(FakeService.Received request) throws Exception {
    Map<String, String> parts = new HashMap<>();
    for (String part : request.header("X-Ark-Signature").split(",")) {
      parts.put(part.substring(0, part.indexOf('=')), part.substring(part.indexOf('=') + 1));
    }
    String expected = ChannelTesting.hmacHex(WEBHOOK_SECRET, parts.get("t") + "." + request.body());
    return expected.equals(parts.get("v1"))
        && Math.abs(System.currentTimeMillis() / 1000 - Long.parseLong(parts.get("t"))) < 300;
  }

  private static List<FakeService.Received> eventsOf(String id, String type) {
    return receiver.received("POST", "/hooks/ark").stream()
        .filter(r -> r.header("X-Ark-Event-Id").equals(id + ":" + type)).toList();
  }

  @Test
  void aRoutedQuestionIsPostedSignedWhenAskedAndAgainWhenAnswered() throws Exception {
    String id = broker.ask("{'recipient':'ark://teams/release','content':'Tag v1.2?','options':['yes','no']}").getString("id");

    FakeService.Received created = receiver.await(r -> (id + ":question_created").equals(r.header("X-Ark-Event-Id")), WAIT);

    assertThat(signedByTheBroker(created)).isTrue();
    assertThat(created.header("Content-Type")).isEqualTo("application/json");
    assertThat(created.header("X-Ark-Event")).isEqualTo("question_created");
    JsonObject event = created.json();
    assertThat(event.getString("id")).isEqualTo(id + ":question_created");
    assertThat(event.getString("type")).isEqualTo("question_created");
    assertThat(event.getJsonObject("question").getString("content")).isEqualTo("Tag v1.2?");
    JsonObject recorded = awaitQuestion(broker, id, q -> delivery(q, "webhook") != null);
    assertThat(delivery(recorded, "webhook").getString("label")).isEqualTo("webhook");

    broker.patch("/questions/" + id, "{\"response\":\"yes\",\"answeredBy\":\"ark://users/john.doe\"}");

    FakeService.Received answered = receiver.await(r -> (id + ":question_answered").equals(r.header("X-Ark-Event-Id")), WAIT);
    assertThat(signedByTheBroker(answered)).isTrue();
    assertThat(answered.json().getJsonObject("question").getString("response")).isEqualTo("yes");
    awaitQuestion(broker, id, q -> "answered".equals(delivery(q, "webhook").getString("outcome")));
    assertThat(eventsOf(id, "question_created")).hasSize(1);
    assertThat(eventsOf(id, "question_answered")).hasSize(1);
  }

  @Test
  void aReceiverThatFailsGetsTheSameEventAgainUntilItTakesIt() throws Exception {
    replies.add(FakeService.Reply.json(503, new JsonObject()));
    replies.add(new FakeService.Reply(429, Map.of("Retry-After", "0"), ""));
    String id = broker.ask("{'recipient':'ark://teams/release','content':'Retry me'}").getString("id");

    awaitQuestion(broker, id, q -> delivery(q, "webhook") != null);

    List<FakeService.Received> attempts = eventsOf(id, "question_created");
    assertThat(attempts).hasSize(3);
    assertThat(attempts.stream().map(FakeService.Received::body).distinct()).hasSize(1);
  }

  @Test
  void questionsThatNoRuleOrChannelSendsThereAreNotPosted() throws Exception {
    String unrouted = broker.ask("{'recipient':'ark://users/john.doe','content':'Not for the webhook'}").getString("id");
    String routed = broker.ask("{'recipient':'ark://teams/release','content':'For the webhook'}").getString("id");

    awaitQuestion(broker, routed, q -> delivery(q, "webhook") != null);

    assertThat(receiver.received("POST", "/hooks/ark").stream().filter(r -> r.body().contains(unrouted))).isEmpty();
  }
}
