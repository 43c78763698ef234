package ark.broker.store;

import ark.broker.auth.AuthMethod;
import ark.broker.auth.Principal;
import ark.broker.auth.PrincipalKind;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BudgetsTest {
  private static final String AGENT = "ark://agents/ns/reviewer";
  private static final String SMALL_TEAM = "ark://teams/small";
  private static final String BIG_TEAM = "ark://teams/big";
  private static final String UNLIMITED_TEAM = "ark://teams/unlimited";

  private static Budgets budgets(JsonObject overrides) {
    return Budgets.from(new JsonObject().put("maxPendingQuestions", 1000).put("createsPerMinute", 600)
        .put("maxMcpSessions", 100).put("overrides", overrides));
  }

  private static Principal human(String... teams) {
    return new Principal(PrincipalKind.HUMAN, "ark://users/ann", List.of(teams), AuthMethod.TOKEN);
  }

  @Test
  void withoutOverridesEveryoneHasTheDefaultsAndAdminsNoBudget() {
    Budgets budgets = budgets(new JsonObject());

    assertThat(budgets.of(human())).isEqualTo(new Budget(1000, 600, 100));
    assertThat(budgets.of(Principal.ANONYMOUS)).isEqualTo(Budget.UNLIMITED);
  }

  @Test
  void anOwnEntryWinsKeyByKeyThenTheMostGenerousTeamThenTheDefault() {
    Budgets budgets = budgets(new JsonObject()
        .put("ark://users/ann", new JsonObject().put("maxPendingQuestions", 5))
        .put(SMALL_TEAM, new JsonObject().put("maxPendingQuestions", 50).put("createsPerMinute", 10))
        .put(BIG_TEAM, new JsonObject().put("createsPerMinute", 20))
        .put(UNLIMITED_TEAM, new JsonObject().put("maxMcpSessions", 0)));

    assertThat(budgets.of(human(SMALL_TEAM, BIG_TEAM))).isEqualTo(new Budget(5, 20, 100));
    assertThat(budgets.of(human(SMALL_TEAM, UNLIMITED_TEAM))).isEqualTo(new Budget(5, 10, 0));
    assertThat(budgets.of(new Principal(PrincipalKind.AGENT, AGENT, List.of(), AuthMethod.TOKEN)))
        .isEqualTo(new Budget(1000, 600, 100));
  }

  @Test
  void aServicesTotalForTheAgentsItActsForResolvesLikeTheRest() {
    Principal executor = new Principal(PrincipalKind.SERVICE, "ark://users/executor", List.of(SMALL_TEAM), AuthMethod.TOKEN);
    Principal other = new Principal(PrincipalKind.SERVICE, "ark://users/other", List.of(SMALL_TEAM), AuthMethod.TOKEN);
    Budgets budgets = Budgets.from(new JsonObject().put("maxPendingQuestions", 1000).put("createsPerMinute", 600)
        .put("maxMcpSessions", 100).put("actingFor", new JsonObject().put("maxPendingQuestions", 2000).put("createsPerMinute", 60))
        .put("overrides", new JsonObject()
            .put("ark://users/executor", new JsonObject().put("createsPerMinute", 5)
                .put("actingFor", new JsonObject().put("createsPerMinute", 6000)))
            .put(SMALL_TEAM, new JsonObject().put("actingFor", new JsonObject().put("maxPendingQuestions", 0)))));

    assertThat(budgets.actingFor(executor)).isEqualTo(new Budget(0, 6000, 0));
    assertThat(budgets.actingFor(other)).isEqualTo(new Budget(0, 60, 0));
    assertThat(budgets.of(executor)).as("as itself").isEqualTo(new Budget(1000, 5, 100));
    assertThat(budgets(new JsonObject()).actingFor(executor)).as("without the section: one principal's")
        .isEqualTo(new Budget(1000, 600, 0));
    assertThatThrownBy(() -> budgets(new JsonObject().put("ark://users/executor",
        new JsonObject().put("actingFor", new JsonObject().put("maxMcpSessions", 1)))))
        .hasMessageContaining("budgets.overrides[\"ark://users/executor\"].actingFor has an unknown key 'maxMcpSessions'");
  }

  @Test
  void aBrokenSectionStopsTheStartWithAClearMessage() {
    assertThatThrownBy(() -> budgets(new JsonObject().put("ann", new JsonObject())))
        .hasMessageContaining("overrides are keyed by ark://agents/<name>, ark://users/<name> or ark://teams/<name>");
    assertThatThrownBy(() -> budgets(new JsonObject().put(AGENT, new JsonObject().put("maxPending", 1))))
        .hasMessageContaining("unknown key 'maxPending'");
    assertThatThrownBy(() -> budgets(new JsonObject().put(AGENT, new JsonObject().put("createsPerMinute", -1))))
        .hasMessageContaining("budgets.overrides[\"" + AGENT + "\"].createsPerMinute must be a whole number, 0 or more");
    assertThatThrownBy(() -> Budgets.from(new JsonObject().put("maxPendingQuestions", "many").put("createsPerMinute", 1)
        .put("maxMcpSessions", 1))).hasMessageContaining("budgets.maxPendingQuestions must be a whole number");
  }
}
