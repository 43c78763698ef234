package ark.broker.http;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.CapturedLog;
import ark.broker.testing.RawHttp;
import ark.broker.testing.TestBroker;
import ch.qos.logback.classic.Level;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DNS-rebinding protection on the REST API and the dashboard, as MCP has it, whether the host comes in {@code Host}
 * or in an absolute-form target; the metadata names no host but an allowed one; probes answer whatever the host.
 */
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

  /** A route of every store of Ark's broker, as "METHOD path". */
  static final List<String> ARK_ROUTES = List.of("GET /messages", "POST /messages", "GET /messages?watch=true",
      "GET /conversations", "POST /conversations", "GET /memory-status", "DELETE /queries/q-1/messages", "GET /stream",
      "POST /stream/q-1", "GET /events", "POST /events", "GET /sessions", "POST /sessions", "GET /traces",
      "POST /v1/traces");

  @Test
  void arkRoutesRefuseAnotherHostOrOriginWith403InUpstreamsEnvelopeWithoutAnErrorLine() throws Exception {
    CapturedLog log = CapturedLog.all();
    try (log) {
      for (String route : ARK_ROUTES) {
        String[] parts = route.split(" ", 2);
        for (String hostAndOrigin : List.of("evil.example.com\n", "localhost\nOrigin: http://evil.example.com\r\n")) {
          String[] sent = hostAndOrigin.split("\n", 2);
          RawHttp.Answer answer = RawHttp.send(broker.base, parts[0] + " " + parts[1] + " HTTP/1.1\r\nHost: " + sent[0]
              + "\r\n" + sent[1] + "Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");

          assertThat(answer.status()).as("%s from %s: %s", route, hostAndOrigin, answer.text()).isEqualTo(403);
          JsonObject error = new JsonObject(answer.body()).getJsonObject("error");
          assertThat(error.getString("code")).isEqualTo("FORBIDDEN");
          assertThat(error.getString("message")).startsWith(sent[1].isEmpty() ? "Invalid Host header" : "Invalid Origin header");
        }
      }
    }

    assertThat(log.events()).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR)
        || event.getThrowableProxy() != null).as("errors or stack traces").isEmpty();
  }

  @Test
  void probesAndMetricsAnswerAnyHostAsAKubeletSendsItsPodIp() throws Exception {
    assertThat(get("/healthz", "10.1.2.3:8080", null).status()).isEqualTo(200);
    assertThat(get("/readyz", "10.1.2.3:8080", null).status()).isEqualTo(200);
    assertThat(get("/metrics", "10.1.2.3:8080", null).status()).isEqualTo(200);
  }

  @Test
  void anAbsoluteFormTargetIsCheckedLikeHostOnBothPorts() throws Exception {
    String viaEvil = """
        GET http://evil.example.com%s HTTP/1.1\r
        Host: localhost\r
        Accept: text/event-stream\r
        Connection: close\r
        \r
        """;
    RawHttp.Answer rest = RawHttp.send(broker.base, viaEvil.formatted("/questions"));
    RawHttp.Answer mcp = RawHttp.send(broker.mcp, viaEvil.formatted("/mcp"));

    assertThat(rest.status()).as(rest.text()).isEqualTo(403);
    assertThat(rest.body()).contains("Invalid Host header: evil.example.com");
    assertThat(mcp.status()).as(mcp.text()).isEqualTo(403);
    assertThat(RawHttp.send(broker.base, """
        GET http://localhost:1/questions HTTP/1.1\r
        Host: evil.example.com\r
        Connection: close\r
        \r
        """).status()).as("the target's authority counts, not Host").isEqualTo(200);
  }

  @Test
  void theProtectedResourceMetadataNamesOnlyAnAllowedHost() throws Exception {
    RawHttp.Answer evil = get(ProtectedResource.PATH, "evil.example.com", null);
    RawHttp.Answer mcpEvil = RawHttp.send(broker.mcp, """
        GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r
        Host: evil.example.com\r
        Connection: close\r
        \r
        """);
    RawHttp.Answer allowed = get(ProtectedResource.PATH, "localhost:" + broker.base.getPort(), null);

    assertThat(evil.status()).isEqualTo(403);
    assertThat(evil.body()).doesNotContain("\"resource\"");
    assertThat(mcpEvil.status()).isEqualTo(403);
    assertThat(mcpEvil.body()).doesNotContain("\"resource\"");
    assertThat(allowed.status()).isEqualTo(200);
    assertThat(new io.vertx.core.json.JsonObject(allowed.body()).getString("resource"))
        .isEqualTo("http://localhost:" + broker.base.getPort());
  }
}
