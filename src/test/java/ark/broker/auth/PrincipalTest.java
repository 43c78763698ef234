package ark.broker.auth;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrincipalTest {
  @Test
  void namesFollowTheKind() {
    assertThat(new Principal(PrincipalKind.AGENT, "ark://agents/reviewer", List.of(), AuthMethod.TOKEN).name())
        .isEqualTo("ark://agents/reviewer");
    assertThat(new Principal(PrincipalKind.SERVICE, "ark://users/svc", List.of(), AuthMethod.TOKEN).kind())
        .isEqualTo(PrincipalKind.SERVICE);
    assertThat(new Principal(PrincipalKind.ADMIN, "ark://agents/ops-bot", List.of(), AuthMethod.OIDC).isAdmin()).isTrue();

    assertThatThrownBy(() -> new Principal(PrincipalKind.AGENT, "ark://users/john", List.of(), AuthMethod.TOKEN))
        .hasMessageContaining("ark://agents/<name>");
    assertThatThrownBy(() -> new Principal(PrincipalKind.HUMAN, "ark://agents/x", List.of(), AuthMethod.TOKEN))
        .hasMessageContaining("ark://users/<name>");
    assertThatThrownBy(() -> new Principal(PrincipalKind.ADMIN, "ark://teams/ops", List.of(), AuthMethod.TOKEN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Principal(PrincipalKind.HUMAN, "john", List.of(), AuthMethod.TOKEN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Principal(PrincipalKind.HUMAN, "ark://users/", List.of(), AuthMethod.TOKEN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Principal(PrincipalKind.HUMAN, "ark://users/john", List.of("ark://users/jane"),
        AuthMethod.TOKEN)).hasMessageContaining("ark://teams/<name>");
  }

  @Test
  void itIsImmutable() {
    List<String> teams = new ArrayList<>(List.of("ark://teams/ops"));
    Principal principal = new Principal(PrincipalKind.HUMAN, "ark://users/john", teams, AuthMethod.TOKEN);

    teams.add("ark://teams/admins");

    assertThat(principal.teams()).containsExactly("ark://teams/ops");
    assertThat(principal.memberOf("ark://teams/ops")).isTrue();
    assertThatThrownBy(() -> principal.teams().add("ark://teams/x")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void onlyServicesGetAgentPatterns() {
    Principal agent = new Principal(PrincipalKind.AGENT, "ark://agents/a", List.of(), AuthMethod.TOKEN);

    assertThatThrownBy(() -> new Grant(agent, new AgentPatterns(List.of("ark://agents/*"))))
        .hasMessageContaining("only a service may act for agents");
    assertThat(new AgentPatterns(List.of("ark://agents/*")).allows("ark://agents/x")).isTrue();
    assertThat(new AgentPatterns(List.of("ark://agents/ns/*")).allows("ark://agents/ns/x")).isTrue();
    assertThat(new AgentPatterns(List.of("ark://agents/ns/*")).allows("ark://agents/nsx")).isFalse();
    assertThatThrownBy(() -> new AgentPatterns(List.of("ark://users/*"))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new AgentPatterns(List.of("*"))).isInstanceOf(IllegalArgumentException.class);
  }
}
