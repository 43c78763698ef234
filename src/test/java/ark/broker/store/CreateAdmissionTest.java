package ark.broker.store;

import ark.broker.auth.Actor;
import ark.broker.auth.AuthMethod;
import ark.broker.auth.Principal;
import ark.broker.auth.PrincipalKind;
import ark.broker.bus.StoreFailure;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The creates-per-minute bucket and the pending bound, on a clock the test moves by hand. */
class CreateAdmissionTest {
  private Instant now = Instant.parse("2025-01-01T00:00:00Z");
  private final Clock clock = new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  };

  private static final Principal SERVICE = new Principal(PrincipalKind.SERVICE, "ark://users/executor", List.of(),
      AuthMethod.TOKEN);

  private final CreateAdmission admission = new CreateAdmission(Budgets.from(new JsonObject()
      .put("maxPendingQuestions", 3).put("createsPerMinute", 6).put("maxMcpSessions", 1)
      .put("actingFor", new JsonObject().put("maxPendingQuestions", 5).put("createsPerMinute", 10))), clock);

  private static Actor agent(String name) {
    return Actor.as(new Principal(PrincipalKind.AGENT, "ark://agents/" + name, List.of(), AuthMethod.TOKEN));
  }

  private static Actor serviceFor(String agent) {
    return new Actor(SERVICE, "ark://agents/" + agent);
  }

  /** One create through this replica: admitted, its record applied (as every replica applies it), written. */
  private StoreFailure admitWritten(Actor actor) {
    StoreFailure refused = admission.admit(actor, 0, 0);
    if (refused == null) {
      admission.created(actor.attribution(), now);
    }
    admission.written(actor);
    return refused;
  }

  @Test
  void createsAnotherReplicaAdmittedSpendTheSameMinutesBudget() {
    Actor agent = agent("a");
    for (int i = 0; i < 4; i++) {
      admission.created(agent.attribution(), now);
    }
    assertThat(admitWritten(agent)).isNull();
    assertThat(admitWritten(agent)).isNull();

    StoreFailure refused = admitWritten(agent);
    assertThat(refused.getMessage()).contains("may create 6 questions a minute");
    admission.created(agent.attribution(), now.minus(Duration.ofMinutes(5)));
    now = now.plus(Duration.ofSeconds(10));
    assertThat(admitWritten(agent)).as("a create from long ago spends nothing now").isNull();
  }

  @Test
  void aMinutesBudgetRefillsEvenlyAndTheRefusalSaysWhen() {
    Actor agent = agent("a");
    for (int i = 0; i < 6; i++) {
      assertThat(admitWritten(agent)).isNull();
    }

    StoreFailure refused = admitWritten(agent);
    assertThat(refused.reason()).isEqualTo(StoreFailure.Reason.TOO_MANY_REQUESTS);
    assertThat(refused.retryAfterSeconds()).isEqualTo(10);

    now = now.plus(Duration.ofMillis(9_500));
    assertThat(admitWritten(agent).retryAfterSeconds()).as("rounded up, never 0").isEqualTo(1);
    now = now.plus(Duration.ofMillis(500));
    assertThat(admitWritten(agent)).isNull();
  }

  @Test
  void createsBeingWrittenCountAsPendingUntilWritten() {
    Actor agent = agent("a");
    assertThat(admission.admit(agent, 1, 0)).isNull();
    assertThat(admission.admit(agent, 1, 0)).isNull();

    assertThat(admission.admit(agent, 1, 0)).as("1 pending and 2 on their way").isNotNull();
    admission.written(agent);
    assertThat(admission.admit(agent, 1, 0)).isNull();
    assertThat(admission.admit(agent, 1, 0).retryAfterSeconds()).isEqualTo(CreateAdmission.PENDING_RETRY_SECONDS);
  }

  @Test
  void principalsIdleForAMinuteAreForgotten() {
    for (int i = 0; i < 1000; i++) {
      admitWritten(agent("a" + i));
    }
    assertThat(admission.principalsTracked()).isEqualTo(1000);

    now = now.plus(Duration.ofSeconds(61));
    admitWritten(agent("late"));

    assertThat(admission.principalsTracked()).isEqualTo(1);
  }

  @Test
  void aServiceNamingANewAgentForEveryCreateSpendsItsOwnTotal() {
    for (int i = 0; i < 10; i++) {
      assertThat(admitWritten(serviceFor("made-up-" + i))).as("create %d", i).isNull();
    }

    StoreFailure refused = admitWritten(serviceFor("made-up-10"));

    assertThat(refused.reason()).isEqualTo(StoreFailure.Reason.TOO_MANY_REQUESTS);
    assertThat(refused.getMessage()).startsWith("ark://users/executor may create 10 questions a minute over every agent it acts for");
    assertThat(refused.retryAfterSeconds()).isEqualTo(6);
    assertThat(admitWritten(agent("made-up-10"))).as("the agent itself, asking as itself, has its whole budget").isNull();
  }

  @Test
  void aServicesPendingTotalCountsEveryAgentItActsForAndARefusalSpendsNothing() {
    StoreFailure refused = admission.admit(serviceFor("reviewer"), 0, 5);

    assertThat(refused.getMessage()).startsWith("ark://users/executor already has 5 pending questions over every agent it acts for");
    assertThat(refused.retryAfterSeconds()).isEqualTo(CreateAdmission.PENDING_RETRY_SECONDS);
    for (int i = 0; i < 6; i++) {
      assertThat(admitWritten(agent("reviewer"))).as("the refusal took nothing of the agent's own minute").isNull();
    }
    assertThat(admission.admit(serviceFor("writer"), 3, 0).getMessage())
        .as("the agent's own budget still applies").startsWith("ark://agents/writer already has 3 pending questions,");
  }
}
