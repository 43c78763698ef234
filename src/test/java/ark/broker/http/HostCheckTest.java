package ark.broker.http;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.RawHttp;
import ark.broker.testing.TestBroker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** DNS-rebinding protection on the REST API and the dashboard, as MCP has it; probes answer whatever the host. */
class HostCheckTest {
  static TestBroker broker;
  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(started -> broker = started);

  private static RawHttp.Answer get(String path, String host, String origin) throws Exception {
    return RawHttp.send(broker.base, "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n"
        + (origin == null ? "" : "Origin: " + origin + "\r\n") + "Connection: close\r\n\r\n");
  }

  @Test
  void theApiAndTheDashboardAnswerOnlyAllowedHostsAndOrigins() throws Exception {
    RawHttp.Answer rebound = get("/questions", "evil.example.com", null);
    RawHttp.Answer crossSite = get("/questions", "localhost:8080", "http://evil.example.com");

    assertThat(rebound.status()).isEqualTo(403);
    assertThat(rebound.body()).contains("Invalid Host header: evil.example.com");
    assertThat(crossSite.status()).isEqualTo(403);
    assertThat(crossSite.body()).contains("Invalid Origin header");
    assertThat(get("/", "evil.example.com", null).status()).isEqualTo(403);
    assertThat(get("/questions", "localhost:8080", "http://localhost:3000").status()).isEqualTo(200);
    assertThat(get("/questions", "127.0.0.1", null).status()).isEqualTo(200);
  }

  @Test
  void probesAndMetricsAnswerAnyHostAsAKubeletSendsItsPodIp() throws Exception {
    assertThat(get("/healthz", "10.1.2.3:8080", null).status()).isEqualTo(200);
    assertThat(get("/readyz", "10.1.2.3:8080", null).status()).isEqualTo(200);
    assertThat(get("/metrics", "10.1.2.3:8080", null).status()).isEqualTo(200);
  }
}
