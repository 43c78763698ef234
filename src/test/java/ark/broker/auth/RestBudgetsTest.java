package ark.broker.auth;

import ark.broker.testing.Identities;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.util.List;

import static ark.broker.testing.Identities.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Budgets over REST: a caller over its budget of pending questions or of creates per minute gets 429 with
 * Retry-After and the JSON error, and nothing is created. Each test uses principals of its own.
 */
class RestBudgetsTest {
  /** What the service may create a minute for all the agents it acts for. */
  private static final int SERVICE_PER_MINUTE = 10;
  /** Low defaults, so that the admin's exemption shows; the overrides give each test's caller its own budget. */
  private static final JsonObject BUDGETS = new JsonObject()
      .put("maxPendingQuestions", 3)
      .put("actingFor", new JsonObject().put("maxPendingQuestions", 0).put("createsPerMinute", SERVICE_PER_MINUTE))
      .put("overrides", new JsonObject()
          .put(AGENT_NAME, new JsonObject().put("maxPendingQuestions", 2))
          .put(OTHER_AGENT_NAME, new JsonObject().put("maxPendingQuestions", 0).put("createsPerMinute", 2))
          .put(TEAM, new JsonObject().put("maxPendingQuestions", 1)));

  @TempDir
  static Path dir;
  static TestBroker broker;

  @BeforeAll
  static void start() throws Exception {
    broker = TestBroker.start(dir.resolve("data"), config(dir));
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  private static JsonObject config(Path tokensDir) throws Exception {
    return Identities.config(tokensDir).put("budgets", BUDGETS);
  }

  private static TestBroker.Response ask(TestBroker as, JsonObject body) throws Exception {
    return as.post("/questions", body.encode());
  }

  private static JsonObject question(String recipient) {
    return new JsonObject().put("recipient", recipient).put("content", "Ship it?");
  }

  private static List<JsonObject> pendingFrom(TestBroker on, String sender) throws Exception {
    return on.as(ADMIN).listAll("status=pending&sender=" + sender);
  }

  private static void assertOverBudget(TestBroker.Response refused, String message) {
    assertThat(refused.status()).as(refused.body()).isEqualTo(429);
    assertThat(Long.parseLong(refused.header("Retry-After"))).isGreaterThanOrEqualTo(1);
    assertThat(refused.error().getString("reason")).isEqualTo("TooManyRequests");
    assertThat(refused.error().getString("message")).contains(message)
        .contains("retry in " + refused.header("Retry-After") + " second");
  }

  @Test
  void anAgentAtItsPendingBudgetGets429UntilOneIsAnswered() throws Exception {
    String first = ask(broker.as(AGENT), question(HUMAN_NAME).put("idempotencyKey", "first")).json().getString("id");
    assertThat(ask(broker.as(AGENT), question(HUMAN_NAME)).status()).isEqualTo(201);

    TestBroker.Response refused = ask(broker.as(AGENT), question(HUMAN_NAME).put("content", "A third?"));
    TestBroker.Response forTheAgent = broker.as(SERVICE).send(HttpRequest.newBuilder(broker.base.resolve("/questions"))
        .header("Content-Type", "application/json").header("X-Ark-Agent", AGENT_NAME)
        .POST(HttpRequest.BodyPublishers.ofString(question(HUMAN_NAME).put("content", "For the reviewer").encode())));
    TestBroker.Response replay = ask(broker.as(AGENT), question(HUMAN_NAME).put("idempotencyKey", "first"));

    assertOverBudget(refused, AGENT_NAME + " already has 2 pending questions");
    assertThat(refused.header("Retry-After")).isEqualTo("30");
    assertOverBudget(forTheAgent, AGENT_NAME + " already has 2 pending questions");
    assertThat(replay.status()).as("a replay creates nothing, so it is never refused").isEqualTo(200);
    assertThat(replay.json().getString("id")).isEqualTo(first);
    assertThat(pendingFrom(broker, AGENT_NAME)).as("nothing was created").hasSize(2);

    assertThat(broker.as(HUMAN).patch("/questions/" + first, new JsonObject().put("response", "yes").encode()).status())
        .isEqualTo(200);
    assertThat(ask(broker.as(AGENT), question(HUMAN_NAME).put("content", "A third?")).status())
        .as("an answered question frees its place").isEqualTo(201);
    assertThat(ask(broker.as(AGENT), question(HUMAN_NAME).put("content", "A fourth?")).status()).isEqualTo(429);
  }

  @Test
  void beyondItsCreatesPerMinuteAnAgentGets429WithRetryAfter() throws Exception {
    assertThat(ask(broker.as(OTHER_AGENT), question(OTHER_HUMAN_NAME)).status()).isEqualTo(201);
    assertThat(ask(broker.as(OTHER_AGENT), question(OTHER_HUMAN_NAME)).status()).isEqualTo(201);

    TestBroker.Response refused = ask(broker.as(OTHER_AGENT), question(OTHER_HUMAN_NAME));

    assertOverBudget(refused, OTHER_AGENT_NAME + " may create 2 questions a minute");
    // The bucket refills the budget over a minute: the next create is at most half a minute away.
    assertThat(Long.parseLong(refused.header("Retry-After"))).isLessThanOrEqualTo(30);
    assertThat(pendingFrom(broker, OTHER_AGENT_NAME)).hasSize(2);
  }

  @Test
  void aServiceNamingANewAgentForEachCreateIsBoundByItsOwnTotal() throws Exception {
    List<TestBroker.Response> answers = new java.util.ArrayList<>();
    for (int i = 0; i < 6 * SERVICE_PER_MINUTE; i++) {
      answers.add(broker.as(SERVICE).send(HttpRequest.newBuilder(broker.base.resolve("/questions"))
          .header("Content-Type", "application/json").header("X-Ark-Agent", "ark://agents/team-a/made-up-" + i)
          .POST(HttpRequest.BodyPublishers.ofString(question(OTHER_HUMAN_NAME).put("content", "Flood " + i).encode()))));
    }

    long created = answers.stream().filter(answer -> answer.status() == 201).count();
    // Another test may have spent one of the service's creates this minute.
    assertThat(created).as("of %d, each for a new agent", answers.size())
        .isBetween(SERVICE_PER_MINUTE - 1L, (long) SERVICE_PER_MINUTE);
    assertOverBudget(answers.get(answers.size() - 1),
        SERVICE_NAME + " may create " + SERVICE_PER_MINUTE + " questions a minute over every agent it acts for");
    assertThat(broker.as(ADMIN).listAll("status=pending&recipient=" + OTHER_HUMAN_NAME).stream()
        .filter(question -> question.getString("content").startsWith("Flood "))).hasSize((int) created);
  }

  @Test
  void aTeamsBudgetAppliesToItsMembers() throws Exception {
    assertThat(ask(broker.as(HUMAN), question(OTHER_HUMAN_NAME)).status()).isEqualTo(201);

    TestBroker.Response refused = ask(broker.as(HUMAN), question(OTHER_HUMAN_NAME));

    assertOverBudget(refused, HUMAN_NAME + " already has 1 pending question,");
    for (int i = 0; i < 2; i++) {
      assertThat(ask(broker.as(OTHER_HUMAN), question(HUMAN_NAME)).status()).as("bob is in no team").isEqualTo(201);
    }
  }

  @Test
  void anAdminHasNoBudget() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(ask(broker.as(ADMIN), question(OTHER_HUMAN_NAME).put("sender", ADMIN_NAME)).status()).isEqualTo(201);
    }
    assertThat(pendingFrom(broker, ADMIN_NAME)).hasSize(5);
  }

  @Test
  void thePendingCountSurvivesARestart(@TempDir Path other) throws Exception {
    Path data = other.resolve("data");
    try (TestBroker first = TestBroker.start(data, config(other))) {
      assertThat(ask(first.as(AGENT), question(HUMAN_NAME)).status()).isEqualTo(201);
      assertThat(ask(first.as(AGENT), question(HUMAN_NAME)).status()).isEqualTo(201);
    }

    try (TestBroker restarted = TestBroker.start(data, config(other))) {
      assertOverBudget(ask(restarted.as(AGENT), question(HUMAN_NAME)), AGENT_NAME + " already has 2 pending questions");
      assertThat(pendingFrom(restarted, AGENT_NAME)).hasSize(2);
    }
  }
}
