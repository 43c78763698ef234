package ark.broker.store;

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

  private final CreateAdmission admission = new CreateAdmission(Budgets.from(new JsonObject()
      .put("maxPendingQuestions", 3).put("createsPerMinute", 6).put("maxMcpSessions", 1)), clock);

  private static Principal agent(String name) {
    return new Principal(PrincipalKind.AGENT, "ark://agents/" + name, List.of(), AuthMethod.TOKEN);
  }

  private StoreFailure admitWritten(Principal agent) {
    StoreFailure refused = admission.admit(agent, 0);
    admission.written(agent);
    return refused;
  }

  @Test
  void aMinutesBudgetRefillsEvenlyAndTheRefusalSaysWhen() {
    Principal agent = agent("a");
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
    Principal agent = agent("a");
    assertThat(admission.admit(agent, 1)).isNull();
    assertThat(admission.admit(agent, 1)).isNull();

    assertThat(admission.admit(agent, 1)).as("1 pending and 2 on their way").isNotNull();
    admission.written(agent);
    assertThat(admission.admit(agent, 1)).isNull();
    assertThat(admission.admit(agent, 1).retryAfterSeconds()).isEqualTo(CreateAdmission.PENDING_RETRY_SECONDS);
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
}
