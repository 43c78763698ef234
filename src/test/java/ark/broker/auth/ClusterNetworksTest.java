package ark.broker.auth;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which peer addresses count as Ark's in-cluster callers on Ark's broker routes, and which settings are refused. */
class ClusterNetworksTest {
  private final ClusterNetworks pods = ClusterNetworks.of(List.of("10.0.0.0/8", "172.16.0.0/12", "fd00::/8",
      "192.168.1.7"));

  @Test
  void addressesInsideABlockAreTrustedAndTheirNeighboursAreNot() {
    assertThat(pods.contains("10.244.3.17")).isTrue();
    assertThat(pods.contains("11.0.0.1")).isFalse();
    assertThat(pods.contains("172.31.255.255")).isTrue();
    assertThat(pods.contains("172.32.0.0")).isFalse();
    assertThat(pods.contains("fd12:3456::1")).isTrue();
    assertThat(pods.contains("fe80::1")).isFalse();
  }

  @Test
  void anAddressAloneIsABlockOfOne() {
    assertThat(pods.contains("192.168.1.7")).isTrue();
    assertThat(pods.contains("192.168.1.8")).isFalse();
  }

  @Test
  void anIpv4PeerSeenOnAnIpv6SocketIsTheSamePeer() {
    assertThat(pods.contains("::ffff:10.0.0.5")).isTrue();
    assertThat(pods.contains("::ffff:8.8.8.8")).isFalse();
  }

  @Test
  void namesAreNeverLookedUpAndNothingIsTrustedByDefault() {
    assertThat(ClusterNetworks.of(List.of("127.0.0.0/8")).contains("localhost")).isFalse();
    assertThat(pods.contains(null)).isFalse();
    assertThat(ClusterNetworks.of(List.of()).contains("10.0.0.1")).isFalse();
    assertThat(ClusterNetworks.of(List.of()).isEmpty()).isTrue();
  }

  @Test
  void aSettingThatIsNoNetworkIsRefusedNamingTheKey() {
    for (String wrong : new String[] {"10.0.0.0/33", "example.com", "10.0.0.0/x", "fd00::/129"}) {
      assertThatThrownBy(() -> ClusterNetworks.of(List.of(wrong))).as(wrong)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("auth.clusterNetworks")
          .hasMessageContaining(wrong);
    }
  }
}
