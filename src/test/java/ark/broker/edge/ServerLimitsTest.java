package ark.broker.edge;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A port's limits as read from its config section; settings that would break the port stop the start. */
class ServerLimitsTest {
  private static JsonObject section(int idleTimeoutSeconds) {
    return new JsonObject().put("maxConnections", 100).put("maxConnectionsPerClient", 10)
        .put("idleTimeoutSeconds", idleTimeoutSeconds).put("headerTimeoutSeconds", 10)
        .put("maxHeaderBytes", 16384).put("maxRequestLineBytes", 8192);
  }

  @Test
  void anIdleTimeoutNotLongerThanTheHeartbeatIsRefusedNamingBothKeys() {
    assertThatThrownBy(() -> ServerLimits.from("http", section(15), 15))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("http.idleTimeoutSeconds (15)").hasMessageContaining("http.heartbeatSeconds (15)");
  }

  @Test
  void noIdleTimeoutAndOneLongerThanTheHeartbeatAreAccepted() {
    assertThat(ServerLimits.from("mcp", section(0), 15).options().getIdleTimeout()).isZero();
    assertThat(ServerLimits.from("mcp", section(60), 15).options().getIdleTimeout()).isEqualTo(60);
  }

  @Test
  void connectionsWriteOnTheirOwnEventLoopWithoutAQueueForOtherThreads() {
    assertThat(ServerLimits.from("http", section(60), 15).options().getStrictThreadMode()).isTrue();
  }

  @Test
  void capsBelowOneAreRefused() {
    assertThatThrownBy(() -> ServerLimits.from("mcp", section(60).put("maxConnectionsPerClient", 0), 15))
        .hasMessageContaining("mcp.maxConnectionsPerClient must be at least 1");
  }
}
