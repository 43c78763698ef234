package ark.broker.http;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Many people answering one question at the same moment: the first answer wins, everyone else is told. */
class AnswerRaceTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(started -> broker = started);

  @RepeatedTest(3)
  void exactlyOneOfManyConcurrentAnswersWins() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john','content':'Who is first?'}").getString("id");
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      HttpRequest request = HttpRequest.newBuilder(broker.base.resolve("/questions/" + id))
          .header("Content-Type", "application/json")
          .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"response\":\"answer " + i + "\"}"))
          .build();
      answers.add(broker.http.sendAsync(request, HttpResponse.BodyHandlers.ofString()));
    }
    CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).join();

    List<HttpResponse<String>> won = answers.stream().map(CompletableFuture::join).filter(r -> r.statusCode() == 200).toList();
    long conflicts = answers.stream().map(CompletableFuture::join).filter(r -> r.statusCode() == 409).count();
    assertThat(won).hasSize(1);
    assertThat(conflicts).isEqualTo(63);
    String winner = new JsonObject(won.get(0).body()).getString("response");
    assertThat(broker.get("/questions/" + id).json().getString("response")).isEqualTo(winner);
  }
}
