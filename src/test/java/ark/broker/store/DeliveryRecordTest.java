package ark.broker.store;

import ark.broker.auth.Actor;
import ark.broker.bus.Addresses;
import ark.broker.bus.StoreFailure;
import ark.broker.question.Delivery;
import ark.broker.question.Question;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.SseStream;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Channels record where they showed a question; the record is part of the question and of its history. */
class DeliveryRecordTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(started -> broker = started);

  private static Question record(String id, Delivery delivery) throws Exception {
    return Addresses.QUESTION_STORE.client(broker.vertx.eventBus(), 10_000).recordDelivery(Actor.BROKER, id, delivery)
        .await(10, TimeUnit.SECONDS);
  }

  @Test
  void aDeliveryIsRecordedOnTheQuestionAndWatchersSeeIt() throws Exception {
    JsonObject question = broker.ask("{'recipient':'ark://users/john','content':'Deliver me'}");
    try (SseStream watch = broker.watch("resourceVersion=" + question.getString("resourceVersion"), null)) {
      Question delivered = record(question.getString("id"), new Delivery("slack", "C123/1700000000.000100", "Slack #ops", Instant.parse("2026-01-01T00:00:00Z")));

      assertThat(delivered.deliveries()).extracting(Delivery::ref).containsExactly("C123/1700000000.000100");
      SseStream.SseEvent event = watch.next();
      assertThat(event.event()).isEqualTo("question_delivered");
      assertThat(event.json().getJsonArray("deliveries").getJsonObject(0).getString("channel")).isEqualTo("slack");
    }
    assertThat(broker.get("/questions/" + question.getString("id")).json().getJsonArray("deliveries")).hasSize(1);
  }

  @Test
  void theSameChannelAndRefReplaceTheEarlierRecordAndAnsweredQuestionsStillTakeThem() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john','content':'Deliver me twice'}").getString("id");
    record(id, new Delivery("github", "org/repo#1/comment/1", "GitHub org/repo#1", Instant.parse("2026-01-01T00:00:00Z")));
    broker.patch("/questions/" + id, "{\"response\":\"done\"}");

    Question updated = record(id, new Delivery("github", "org/repo#1/comment/1", "GitHub org/repo#1", Instant.parse("2026-01-01T00:05:00Z")));

    assertThat(updated.deliveries()).hasSize(1);
    assertThat(updated.deliveries().get(0).at()).isEqualTo(Instant.parse("2026-01-01T00:05:00Z"));
    assertThat(updated.outcome().response()).isEqualTo("done");
  }

  @Test
  void anUnknownQuestionIsNotFound() {
    StoreFailure failure = catchThrowableOfType(StoreFailure.class,
        () -> record("q-unknown", new Delivery("slack", "C1/1", null, Instant.now())));

    assertThat(failure.reason()).isEqualTo(StoreFailure.Reason.NOT_FOUND);
  }
}
