package ark.broker;

import ark.broker.testing.Eventually;
import ark.broker.testing.OnThreeReplicas;
import ark.broker.testing.SseStream;
import ark.broker.testing.SseStream.SseEvent;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/** Three replicas sharing one Kafka topic: any replica serves any request, and they all agree. */
class ReplicasTest extends OnThreeReplicas {
  @Test
  void aQuestionCreatedOnOneReplicaIsServedAtOnceByTheOthers() throws Exception {
    JsonObject created = a.ask("{'recipient':'" + someone() + "','content':'Ship it?'}");
    String id = created.getString("id");

    assertThat(b.get("/questions/" + id).json()).isEqualTo(created);
    assertThat(c.get("/questions/" + id).json()).isEqualTo(created);
    for (TestBroker replica : new TestBroker[] {b, c}) {
      Eventually.until("the list on another replica shows it",
          () -> replica.get("/questions?recipient=" + created.getString("recipient")).json().getJsonArray("items"),
          items -> items.size() == 1 && items.getJsonObject(0).equals(created));
    }
  }

  @Test
  void ofConcurrentAnswersOnTwoReplicasExactlyOneWinsAndEveryReplicaAgrees() throws Exception {
    for (int round = 0; round < 10; round++) {
      String id = a.ask("{'recipient':'" + someone() + "','content':'Who is first?'}").getString("id");
      b.get("/questions/" + id);
      CompletableFuture<HttpResponse<String>> onA = answer(a, id, "from A");
      CompletableFuture<HttpResponse<String>> onB = answer(b, id, "from B");

      List<Integer> statuses = List.of(onA.join().statusCode(), onB.join().statusCode());
      assertThat(statuses).as("round %d", round).containsExactlyInAnyOrder(200, 409);
      HttpResponse<String> won = onA.join().statusCode() == 200 ? onA.join() : onB.join();
      HttpResponse<String> lost = won == onA.join() ? onB.join() : onA.join();
      JsonObject winner = new JsonObject(won.body());
      assertThat(new JsonObject(lost.body()).getJsonObject("error").getString("message")).contains("is already answered");
      for (TestBroker replica : new TestBroker[] {a, b, c}) {
        Eventually.until("every replica shows the winner", () -> replica.get("/questions/" + id).json(),
            question -> question.equals(winner));
      }
    }
  }

  @Test
  void aWatchStartedOnOneReplicaResumesOnAnotherWithNothingMissedOrRepeated() throws Exception {
    String recipient = someone();
    String from = a.get("/questions").json().getString("resourceVersion");
    List<JsonObject> expected = new ArrayList<>();
    List<SseEvent> seen = new ArrayList<>();
    try (SseStream onA = a.watch("recipient=" + recipient + "&resourceVersion=" + from, null)) {
      for (TestBroker replica : new TestBroker[] {a, b, c}) {
        expected.add(replica.ask("{'recipient':'" + recipient + "','content':'before the move'}"));
      }
      for (int i = 0; i < 3; i++) {
        seen.add(onA.next());
      }
    }
    String lastId = seen.get(seen.size() - 1).id();
    for (TestBroker replica : new TestBroker[] {c, a, b}) {
      expected.add(replica.ask("{'recipient':'" + recipient + "','content':'while nobody watched'}"));
    }

    try (SseStream onB = b.watch("recipient=" + recipient, lastId)) {
      for (TestBroker replica : new TestBroker[] {b, c}) {
        expected.add(replica.ask("{'recipient':'" + recipient + "','content':'after the move'}"));
      }
      for (int i = 0; i < 5; i++) {
        seen.add(onB.next());
      }
      assertThat(onB.next(300, java.util.concurrent.TimeUnit.MILLISECONDS)).as("nothing repeated").isNull();
    }

    assertThat(seen).extracting(SseEvent::event).containsOnly("question_created");
    assertThat(seen).extracting(SseEvent::json).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(seen).extracting(event -> Long.parseLong(event.id())).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void resourceVersionsMeanTheSameOnEveryReplica() throws Exception {
    String recipient = someone();
    JsonObject first = b.ask("{'recipient':'" + recipient + "','content':'one'}");
    JsonObject answered = c.patch("/questions/" + first.getString("id"), "{\"response\":\"yes\"}").json();
    a.ask("{'recipient':'" + recipient + "','content':'two'}");

    JsonArray onA = Eventually.until("A has both", () -> a.get("/questions?recipient=" + recipient).json().getJsonArray("items"),
        items -> items.size() == 2 && items.getJsonObject(0).getString("status").equals("answered"));
    for (TestBroker replica : new TestBroker[] {b, c}) {
      Eventually.until("the same list, versions included",
          () -> replica.get("/questions?recipient=" + recipient).json().getJsonArray("items"), onA::equals);
    }
    assertThat(Long.parseLong(answered.getString("resourceVersion")))
        .isGreaterThan(Long.parseLong(first.getString("resourceVersion")));
  }

  private static CompletableFuture<HttpResponse<String>> answer(TestBroker replica, String id, String response) {
    HttpRequest request = HttpRequest.newBuilder(replica.base.resolve("/questions/" + id))
        .header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"response\":\"" + response + "\"}"))
        .build();
    return replica.http.sendAsync(request, HttpResponse.BodyHandlers.ofString());
  }
}
