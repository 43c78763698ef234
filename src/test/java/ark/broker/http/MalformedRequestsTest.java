package ark.broker.http;

import ark.broker.testing.ArkCallersFuzz;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.CapturedLog;
import ark.broker.testing.RawHttp;
import ark.broker.testing.TestBroker;
import ch.qos.logback.classic.Level;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Requests no well-behaved client sends: each gets a 4xx with a JSON error, never a 5xx, and changes nothing. */
class MalformedRequestsTest {
  private static final String QUESTION = "{\"recipient\":\"ark://users/john\",\"content\":\"Merge?\"}";
  static TestBroker broker;
  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(started -> broker = started);

  private String stateBefore;

  @BeforeEach
  void rememberState() throws Exception {
    stateBefore = broker.get("/questions?limit=1000").body();
  }

  @AfterEach
  void nothingChangedAndStillServing() throws Exception {
    assertThat(broker.get("/questions?limit=1000").body()).as("the questions, before and after").isEqualTo(stateBefore);
    assertThat(broker.get("/healthz").status()).isEqualTo(200);
  }

  private RawHttp.Answer raw(String request) throws Exception {
    return RawHttp.send(broker.base, request);
  }

  @Test
  void aRequestWithoutHostIs400() throws Exception {
    RawHttp.Answer answer = raw("GET /questions HTTP/1.1\r\nConnection: close\r\n\r\n");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(new JsonObject(answer.body()).getJsonObject("error").getString("message")).contains("Host header");
  }

  @Test
  void aBrokenPercentEncodingIs400() throws Exception {
    RawHttp.Answer answer = raw("GET /questions/%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(new JsonObject(answer.body()).getJsonObject("error").getString("message")).contains("percent-encoding");
  }

  @Test
  void aBrokenChunkIsRefusedWithoutA5xx() throws Exception {
    RawHttp.Answer answer = raw("POST /questions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\nZZ\r\n" + QUESTION + "\r\n0\r\n\r\n");

    // The codec may cut the connection before anything can be answered; if it answers, it is a 400.
    assertThat(answer.status()).isIn(0, 400);
  }

  @Test
  void jsonFollowedByMoreIs400() throws Exception {
    TestBroker.Response answer = broker.post("/questions", QUESTION + " {\"recipient\":\"ark://users/mary\"}");

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.error().getString("message")).contains("not valid JSON");
  }

  @Test
  void anMcpMessageFollowedByMoreIsAParseError() throws Exception {
    TestBroker.Response answer = broker.send(HttpRequest.newBuilder(broker.mcp)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing")));

    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.json().getJsonObject("error").getInteger("code")).isEqualTo(-32700);
  }

  @Test
  void theMcpPortRefusesBrokenRequestsWithoutA5xx() throws Exception {
    String chunked = """
        POST /mcp HTTP/1.1\r
        Host: localhost\r
        Content-Type: application/json\r
        Accept: application/json, text/event-stream\r
        Transfer-Encoding: chunked\r
        Connection: close\r
        \r
        ZZ\r
        {}\r
        0\r
        \r
        """;
    String noHost = "POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";

    assertThat(RawHttp.send(broker.mcp, chunked).status()).isIn(0, 400);
    RawHttp.Answer refused = RawHttp.send(broker.mcp, noHost);
    assertThat(refused.status()).isEqualTo(400);
    assertThat(new JsonObject(refused.body()).getJsonObject("error").getString("message")).contains("Host header");
    assertThat(RawHttp.send(broker.mcp, "GET /mcp%zz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").status())
        .isIn(400, 404);
  }

  /** Every route of both ports, as "METHOD path". */
  private static final List<String> REST_ROUTES = List.of("GET /healthz", "GET /readyz", "GET /metrics", "GET /questions",
      "POST /questions", "GET /questions/q-1", "PATCH /questions/q-1", "DELETE /questions/q-1", "GET /questions/q-1/events",
      "GET /questions?watch=true", "GET /whoami", "GET /audit", "GET /", "GET /index.html", "GET /dashboard/config.json",
      "GET /.well-known/oauth-protected-resource", "POST /channels/slack/events", "GET /channels/email/answer?token=x",
      "GET /nothing-here", "PUT /questions");
  private static final List<String> MCP_ROUTES = List.of("GET /mcp", "POST /mcp", "DELETE /mcp", "PUT /mcp",
      "GET /.well-known/oauth-protected-resource", "GET /.well-known/oauth-protected-resource/mcp", "GET /nothing-here");
  private static final List<String> MALFORMED_HOSTS = List.of("a@b", "x#y", "a b", "[::1", "host:99999", "a/b", "a?b",
      "a\\b", "\"a\"");

  @Test
  void aMalformedHostIs400WithTheJsonErrorOnEveryRouteOfBothPortsAndAtMostOneWarnEach() throws Exception {
    CapturedLog log = CapturedLog.all();
    try (log) {
      for (String host : MALFORMED_HOSTS) {
        for (String route : REST_ROUTES) {
          RawHttp.Answer answer = raw(request(route, host));
          assertThat(answer.status()).as("%s with Host %s: %s", route, host, answer.text()).isEqualTo(400);
          assertThat(new JsonObject(answer.body()).getJsonObject("error").getString("message")).contains("Host header");
        }
        for (String route : MCP_ROUTES) {
          RawHttp.Answer answer = RawHttp.send(broker.mcp, request(route, host));
          assertThat(answer.status()).as("MCP %s with Host %s: %s", route, host, answer.text()).isEqualTo(400);
          assertThat(new JsonObject(answer.body()).getJsonObject("error").getString("message")).contains("Host header");
        }
      }
    }

    assertThat(log.events()).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR)
        || event.getThrowableProxy() != null).as("errors or stack traces").isEmpty();
    assertThat(log.events()).filteredOn(event -> event.getLevel() == Level.WARN
        && event.getLoggerName().endsWith("MalformedRequests")).as("one WARN per port at most").hasSizeLessThanOrEqualTo(2);
  }

  /**
   * Ark's callers' bodies, mutated, compressed or not, from one seed ({@code -Dfuzz.seed=N} replays a run): no 5xx,
   * nothing unanswered, no ERROR line. A few seconds; {@code FuzzIT} sends more against a broker process.
   */
  @Test
  void arksRoutesAnswerMutatedBodiesWithoutA5xxOrAnErrorLine() throws Exception {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    Random random = new Random(seed);
    List<String> wrong = new ArrayList<>();
    CapturedLog log = CapturedLog.all();
    try (log) {
      for (int i = 0; i < 300; i++) {
        String request = ArkCallersFuzz.request(random);
        RawHttp.Answer answer = RawHttp.send(broker.base, request, Duration.ofSeconds(15));
        if (!answer.complete() || answer.status() == 0 || answer.status() >= 500) {
          wrong.add(answer.status() + " to " + request.substring(0, Math.min(200, request.length())));
        }
      }
    }

    assertThat(wrong).as("5xx or unanswered (seed %d)", seed).isEmpty();
    assertThat(log.events()).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
        .as("ERROR lines (seed %d)", seed).isEmpty();
  }

  @Test
  void anAbsoluteFormTargetWithAMalformedAuthorityIs400() throws Exception {
    for (String target : List.of("http://a@localhost/questions", "http://host:99999/questions", "http://[::1/questions",
        "HTTP://a@localhost/questions")) {
      RawHttp.Answer answer = raw("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");

      assertThat(answer.status()).as(target).isEqualTo(400);
      assertThat(new JsonObject(answer.body()).getJsonObject("error").getString("message")).contains("authority");
    }
  }

  private static String request(String route, String host) {
    String[] parts = route.split(" ", 2);
    boolean body = parts[0].equals("POST") || parts[0].equals("PATCH") || parts[0].equals("PUT");
    return parts[0] + " " + parts[1] + " HTTP/1.1\r\nHost: " + host + "\r\nAccept: application/json, text/event-stream\r\n"
        + (body ? "Content-Type: application/json\r\nContent-Length: 2\r\n" : "") + "Connection: close\r\n\r\n"
        + (body ? "{}" : "");
  }
}
