package ark.broker.edge;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HostPolicyTest {
  @Test
  void onlyAllowedHostsAndOriginsPass() {
    HostPolicy local = new HostPolicy(List.of("localhost", "127.0.0.1", "[::1]"));

    assertThat(local.refusal("localhost:8081", null)).isNull();
    assertThat(local.refusal("127.0.0.1", "http://localhost:5173")).isNull();
    assertThat(local.refusal("[::1]:8081", "http://[::1]:3000")).isNull();
    assertThat(local.refusal("evil.example.com", null)).contains("Invalid Host");
    assertThat(local.refusal("localhost.evil.example.com:8081", null)).contains("Invalid Host");
    assertThat(local.refusal(null, null)).contains("Invalid Host");
    assertThat(local.refusal("localhost:8081", "http://evil.example.com")).contains("Invalid Origin");
    assertThat(local.refusal("localhost:8081", "null")).contains("Invalid Origin");
    assertThat(new HostPolicy(List.of("*")).refusal("anything", "http://anywhere")).isNull();
    HostPolicy cluster = new HostPolicy(List.of("*.svc.cluster.local"));
    assertThat(cluster.refusal("ark-broker.team-a.svc.cluster.local:8081", null)).isNull();
    assertThat(cluster.refusal("svc.cluster.local.evil.com", null)).contains("Invalid Host");
  }
}
