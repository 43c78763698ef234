package ark.broker.http;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static ark.broker.testing.TestBroker.someone;
import static org.assertj.core.api.Assertions.assertThat;

/** Every REST endpoint, status and error, over real HTTP against a whole broker. */
class QuestionsApiTest {
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(
      new JsonObject().put("http", new JsonObject().put("bodyLimitBytes", 4096)), started -> broker = started);

  @Test
  void createAnswersWith201AndWhereTheQuestionLives() throws Exception {
    Response created = broker.post("/questions", """
        {"recipient":"ark://users/john","content":"Merge PR 42?","sender":"ark://agents/reviewer",
         "options":["yes","no"],"priority":"high","context":"CI is green","channels":["slack"]}""");

    assertThat(created.status()).isEqualTo(201);
    JsonObject question = created.json();
    assertThat(question.getString("id")).startsWith("q-");
    assertThat(created.header("Location")).isEqualTo("/questions/" + question.getString("id"));
    assertThat(question.getString("status")).isEqualTo("pending");
    assertThat(question.getString("priority")).isEqualTo("high");
    assertThat(question.getBoolean("blocking")).isTrue();
    assertThat(question.getJsonArray("options")).containsExactly("yes", "no");
    assertThat(question.getString("createdAt")).isNotNull();
    assertThat(Long.parseLong(question.getString("resourceVersion"))).isPositive();

    Response read = broker.get("/questions/" + question.getString("id"));
    assertThat(read.status()).isEqualTo(200);
    assertThat(read.json()).isEqualTo(question);
  }

  @Test
  void theSameIdempotencyKeyReturnsTheQuestionAlreadyCreated() throws Exception {
    String body = "{\"recipient\":\"ark://users/john\",\"content\":\"Deploy?\",\"idempotencyKey\":\"deploy-" + UUID.randomUUID() + "\"}";

    Response first = broker.post("/questions", body);
    Response second = broker.post("/questions", body);

    assertThat(first.status()).isEqualTo(201);
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.json()).isEqualTo(first.json());
    assertThat(second.header("Location")).isEqualTo(first.header("Location"));
  }

  @Test
  void theSameQueryAndToolCallReturnsTheQuestionAlreadyCreated() throws Exception {
    String recipient = someone();
    String body = "{\"recipient\":\"" + recipient + "\",\"content\":\"Proceed?\",\"toolCallId\":\"call_abc\","
        + "\"query\":{\"namespace\":\"default\",\"name\":\"my-query\"}}";

    Response first = broker.post("/questions", body);
    Response replay = broker.post("/questions", body);

    assertThat(first.status()).isEqualTo(201);
    assertThat(replay.status()).isEqualTo(200);
    assertThat(replay.json().getString("id")).isEqualTo(first.json().getString("id"));
    assertThat(broker.get("/questions?recipient=" + recipient).json().getJsonArray("items")).hasSize(1);
  }

  @Test
  void listsWithFiltersAndResourceVersion() throws Exception {
    String recipient = someone();
    JsonObject one = broker.ask("{'recipient':'" + recipient + "','content':'one','sender':'ark://agents/a'}");
    broker.ask("{'recipient':'" + recipient + "','content':'two','sender':'ark://agents/b'}");
    broker.patch("/questions/" + one.getString("id"), "{\"response\":\"done\"}");

    JsonObject all = broker.get("/questions?recipient=" + recipient).json();
    JsonObject pending = broker.get("/questions?recipient=" + recipient + "&status=pending").json();
    JsonObject fromA = broker.get("/questions?recipient=" + recipient + "&sender=ark://agents/a").json();

    assertThat(contents(all)).containsExactly("one", "two");
    assertThat(contents(pending)).containsExactly("two");
    assertThat(contents(fromA)).containsExactly("one");
    assertThat(Long.parseLong(all.getString("resourceVersion"))).isGreaterThanOrEqualTo(3);
    assertThat(all.containsKey("continue")).isFalse();
  }

  @Test
  void pagesWithLimitAndContinue() throws Exception {
    String recipient = someone();
    for (int i = 1; i <= 5; i++) {
      broker.ask("{'recipient':'" + recipient + "','content':'n" + i + "'}");
    }
    List<String> seen = new ArrayList<>();
    String next = null;
    int pages = 0;
    do {
      JsonObject page = broker.get("/questions?recipient=" + recipient + "&limit=2"
          + (next == null ? "" : "&continue=" + next)).json();
      seen.addAll(contents(page));
      next = page.getString("continue");
      pages++;
    } while (next != null);

    assertThat(seen).containsExactly("n1", "n2", "n3", "n4", "n5");
    assertThat(pages).isEqualTo(3);
  }

  @Test
  void searchesTextAndFiltersByPriorityNewestFirst() throws Exception {
    String recipient = someone();
    broker.ask("{'recipient':'" + recipient + "','content':'Deploy the API?','context':'## Diff summary','priority':'high'}");
    broker.ask("{'recipient':'" + recipient + "','content':'Rotate keys?','context':'the api gateway keys','priority':'low'}");
    broker.ask("{'recipient':'" + recipient + "','content':'Lunch?','priority':'high'}");
    String mine = "/questions?recipient=" + recipient;

    assertThat(contents(broker.get(mine + "&q=API").json())).containsExactly("Deploy the API?", "Rotate keys?");
    assertThat(contents(broker.get(mine + "&q=diff%20SUMMARY").json())).containsExactly("Deploy the API?");
    assertThat(contents(broker.get(mine + "&priority=high").json())).containsExactly("Deploy the API?", "Lunch?");
    assertThat(contents(broker.get(mine + "&priority=high&q=api").json())).containsExactly("Deploy the API?");
    assertThat(contents(broker.get(mine + "&order=newest").json())).containsExactly("Lunch?", "Rotate keys?", "Deploy the API?");
    JsonObject newestFirst = broker.get(mine + "&order=newest&limit=2").json();
    JsonObject older = broker.get(mine + "&order=newest&limit=2&continue=" + newestFirst.getString("continue")).json();
    assertThat(contents(newestFirst)).containsExactly("Lunch?", "Rotate keys?");
    assertThat(contents(older)).containsExactly("Deploy the API?");
    assertThat(older.containsKey("continue")).isFalse();
  }

  @Test
  void answeringReturnsTheAnsweredQuestion() throws Exception {
    JsonObject question = broker.ask("{'recipient':'ark://users/john','content':'Merge?','options':['yes','no']}");

    Response answered = broker.patch("/questions/" + question.getString("id"),
        "{\"response\":\"yes\",\"answeredBy\":\"ark://users/john\"}");

    assertThat(answered.status()).isEqualTo(200);
    assertThat(answered.json().getString("status")).isEqualTo("answered");
    assertThat(answered.json().getString("response")).isEqualTo("yes");
    assertThat(answered.json().getString("answeredBy")).isEqualTo("ark://users/john");
    assertThat(answered.json().getString("answeredAt")).isNotNull();
    assertThat(broker.get("/questions/" + question.getString("id")).json()).isEqualTo(answered.json());
  }

  @Test
  void aSecondAnswerConflicts() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john','content':'Merge?'}").getString("id");
    broker.patch("/questions/" + id, "{\"response\":\"yes\"}");

    Response second = broker.patch("/questions/" + id, "{\"response\":\"no\"}");

    assertError(second, 409, "Conflict", "already answered");
    assertThat(broker.get("/questions/" + id).json().getString("response")).isEqualTo("yes");
  }

  @Test
  void answersThatCanNeverBeRightAreBadRequests() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john','content':'Merge?','options':['yes','no']}").getString("id");

    assertError(broker.patch("/questions/" + id, "{\"response\":\"\"}"), 400, "BadRequest", "non-empty");
    assertError(broker.patch("/questions/" + id, "{\"response\":\"maybe\"}"), 400, "BadRequest", "one of the question's options");
    assertError(broker.patch("/questions/" + id, "{\"response\":42}"), 400, "BadRequest", "response must be a string");
    assertError(broker.patch("/questions/" + id, "{}"), 400, "BadRequest", "response is required");
    assertThat(broker.get("/questions/" + id).json().getString("status")).isEqualTo("pending");
  }

  @Test
  void unknownQuestionsAreNotFound() throws Exception {
    assertError(broker.get("/questions/q-nope"), 404, "NotFound", "question q-nope not found");
    assertError(broker.patch("/questions/q-nope", "{\"response\":\"yes\"}"), 404, "NotFound", "q-nope");
    assertError(broker.delete("/questions/q-nope"), 404, "NotFound", "q-nope");
  }

  @Test
  void deleteCancelsAPendingQuestionOnly() throws Exception {
    String id = broker.ask("{'recipient':'ark://users/john','content':'Merge?'}").getString("id");

    Response cancelled = broker.delete("/questions/" + id);
    Response again = broker.delete("/questions/" + id);
    Response answerAfter = broker.patch("/questions/" + id, "{\"response\":\"yes\"}");

    assertThat(cancelled.status()).isEqualTo(200);
    assertThat(cancelled.json().getString("status")).isEqualTo("cancelled");
    assertError(again, 409, "Conflict", "already cancelled");
    assertError(answerAfter, 409, "Conflict", "already cancelled");
  }

  @Test
  void badBodiesAreRefusedAndChangeNothing() throws Exception {
    String recipient = someone();
    assertError(broker.post("/questions", "{\"recipient\":"), 400, "BadRequest", "not valid JSON");
    assertError(broker.post("/questions", "{\"recipient\":\"" + recipient + "\",\"content\":7}"), 400, "BadRequest",
        "content must be a string");
    assertError(broker.post("/questions", "{\"recipient\":\"" + recipient + "\",\"content\":\"x\",\"priority\":\"now\"}"),
        400, "BadRequest", "priority must be one of");
    assertError(broker.post("/questions", "{\"recipient\":\"" + recipient + "\",\"content\":\"x\",\"content\":\"y\"}"),
        400, "BadRequest", "Duplicate field 'content'");
    assertError(broker.post("/questions", ""), 400, "BadRequest", "must be a JSON object");
    assertError(broker.post("/questions", "{\"recipient\":\"" + recipient + "\",\"content\":\"" + "x".repeat(5000) + "\"}"),
        413, "PayloadTooLarge", "larger than the limit");
    assertError(broker.send(HttpRequest.newBuilder(broker.base.resolve("/questions")).header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString("{\"recipient\":\"" + recipient + "\",\"content\":\"x\"}"))),
        415, "UnsupportedMediaType", "application/json");
    assertError(broker.send(HttpRequest.newBuilder(broker.base.resolve("/questions"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"recipient\":\"" + recipient + "\",\"content\":\"x\"}"))),
        415, "UnsupportedMediaType", "untyped");

    assertThat(broker.get("/questions?recipient=" + recipient).json().getJsonArray("items")).isEmpty();
  }

  @Test
  void badQueryParametersAreRefused() throws Exception {
    assertError(broker.get("/questions?status=done"), 400, "BadRequest", "status must be one of pending, answered, cancelled, expired");
    assertError(broker.get("/questions?stauts=pending"), 400, "BadRequest", "unknown query parameter 'stauts'");
    assertError(broker.get("/questions?limit=0"), 400, "BadRequest", "limit must be a whole number from 1 to 1000");
    assertError(broker.get("/questions?limit=abc"), 400, "BadRequest", "limit must be");
    assertError(broker.get("/questions?continue=garbage"), 400, "BadRequest", "continue must be a token");
    assertError(broker.get("/questions?resourceVersion=3"), 400, "BadRequest", "only meaningful with watch=true");
    assertError(broker.get("/questions?watch=true&resourceVersion=abc"), 400, "BadRequest", "resourceVersion must be");
    assertError(broker.get("/questions?watch=yes"), 400, "BadRequest", "watch must be true or false");
    assertError(broker.get("/questions?recipient=john"), 400, "BadRequest", "recipient must look like");
    assertError(broker.get("/questions?status=pending&status=answered"), 400, "BadRequest", "more than once");
    assertError(broker.get("/questions?priority=urgent"), 400, "BadRequest", "priority must be one of high, medium, low");
    assertError(broker.get("/questions?order=random"), 400, "BadRequest", "order must be oldest or newest");
    assertError(broker.get("/questions?watch=true&order=newest"), 400, "BadRequest", "order sorts a list");
    assertError(broker.get("/questions?q=" + "x".repeat(257)), 400, "BadRequest", "search text is longer than 256");
  }

  @Test
  void unknownRoutesAndMethodsGetJsonErrors() throws Exception {
    assertError(broker.get("/nothing-here"), 404, "NotFound", "/nothing-here");
    assertError(broker.send(HttpRequest.newBuilder(broker.base.resolve("/questions")).PUT(HttpRequest.BodyPublishers.noBody())),
        405, "MethodNotAllowed", "PUT");
  }

  @Test
  void requestIdsAreHonouredOrGenerated() throws Exception {
    Response given = broker.send(HttpRequest.newBuilder(broker.base.resolve("/questions/q-missing"))
        .header("X-Request-ID", "trace-123").GET());
    Response generated = broker.get("/questions/q-missing");

    assertThat(given.header("X-Request-ID")).isEqualTo("trace-123");
    assertThat(given.error().getString("requestId")).isEqualTo("trace-123");
    assertThat(generated.header("X-Request-ID")).isNotBlank();
    assertThat(generated.error().getString("requestId")).isEqualTo(generated.header("X-Request-ID"));
  }

  @Test
  void healthReadinessAndMetrics() throws Exception {
    broker.ask("{'recipient':'ark://users/john','content':'counted'}");

    Response health = broker.get("/healthz");
    Response ready = broker.get("/readyz");
    Response metrics = broker.get("/metrics");

    assertThat(health.status()).isEqualTo(200);
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.json().getString("status")).isEqualTo("ready");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.header("Content-Type")).startsWith("text/plain");
    assertThat(metrics.body()).containsPattern("ark_broker_questions\\{status=\"pending\"} [1-9]");
    assertThat(metrics.body()).contains("ark_broker_http_requests_seconds_bucket{");
    assertThat(metrics.body()).contains("route=\"/questions\"");
  }

  private static List<String> contents(JsonObject page) {
    JsonArray items = page.getJsonArray("items");
    List<String> contents = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      contents.add(items.getJsonObject(i).getString("content"));
    }
    return contents;
  }

  static void assertError(Response response, int status, String reason, String messagePart) {
    assertThat(response.status()).as(response.body()).isEqualTo(status);
    assertThat(response.header("Content-Type")).isEqualTo("application/json");
    JsonObject error = response.error();
    assertThat(error.getInteger("code")).isEqualTo(status);
    assertThat(error.getString("reason")).isEqualTo(reason);
    assertThat(error.getString("message")).contains(messagePart);
    assertThat(error.getString("requestId")).isNotBlank();
  }
}
