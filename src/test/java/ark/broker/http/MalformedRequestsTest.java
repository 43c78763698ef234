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

  @Test
  void anAbsoluteFormTargetWithoutHostIs400InTheRoutesEnvelopeOnEveryRouteOfBothPorts() throws Exception {
    withoutAnErrorLine(() -> {
      for (String route : concat(REST_ROUTES, HostCheckTest.ARK_ROUTES)) {
        RawHttp.Answer answer = raw(withoutHost(absolute(request(route, "unused"), broker.base)));
        assertThat(answer.status()).as("%s: %s", route, answer.text()).isEqualTo(400);
        JsonObject error = new JsonObject(answer.body()).getJsonObject("error");
        assertThat(error.getString("message")).contains("Host header");
        assertThat(error.getValue("code")).as("%s: the envelope of its routes", route)
            .isEqualTo(ArkRoutes.owns(route.split(" ")[1].split("\\?")[0]) ? "VALIDATION_ERROR" : 400);
      }
      for (String route : MCP_ROUTES) {
        RawHttp.Answer answer = RawHttp.send(broker.mcp, withoutHost(absolute(request(route, "unused"), broker.mcp)));
        assertThat(answer.status()).as("MCP %s: %s", route, answer.text()).isEqualTo(400);
        assertThat(new JsonObject(answer.body()).getJsonObject("error").getString("message")).contains("Host header");
      }
    });
  }

  @Test
  void aTargetThatIsNeitherAPathNorAUrlIs400OnBothPorts() throws Exception {
    withoutAnErrorLine(() -> {
      for (String target : List.of("*", "*/mcp", "mcp", "?x=1")) {
        for (String method : List.of("OPTIONS", "GET", "POST")) {
          String request = method + " " + target + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              + "Accept: application/json, text/event-stream\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
          for (RawHttp.Answer answer : List.of(RawHttp.send(broker.mcp, request), raw(request))) {
            assertThat(answer.status()).as("%s %s: %s", method, target, answer.text()).isEqualTo(400);
            assertThat(new JsonObject(answer.body()).getJsonObject("error").getString("message")).contains("request target");
          }
        }
      }
    });
  }

  @Test
  void anEventOrASessionFilterBeyondTheDatesOfJavaScriptIs400() throws Exception {
    withoutAnErrorLine(() -> {
      for (String timestamp : List.of("-999999999-01-01T00:00:00Z", "+999999999-12-31T23:59:59Z",
          "+275760-09-13T00:00:00.001Z")) {
        String event = new JsonObject().put("timestamp", timestamp).put("reason", "QueryExecutionStart")
            .put("data", new JsonObject().put("queryId", "uid-far").put("queryName", "q-far").put("sessionId", "s-far"))
            .encode();
        TestBroker.Response posted = broker.post("/events", event);
        assertThat(posted.status()).as("%s: %s", timestamp, posted.body()).isEqualTo(400);
        assertThat(posted.error().getString("code")).isEqualTo("VALIDATION_ERROR");
        assertThat(posted.error().getString("message")).startsWith("timestamp: ").contains(timestamp);

        TestBroker.Response filtered = broker.get("/sessions?dateFrom=" + timestamp.replace("+", "%2B"));
        assertThat(filtered.status()).as("%s: %s", timestamp, filtered.body()).isEqualTo(400);
        assertThat(filtered.error().getString("message")).startsWith("dateFrom: ");
      }
      assertThat(broker.get("/events/uid-far").json().getInteger("total")).isZero();
      assertThat(broker.post("/events", new JsonObject().put("timestamp", "+275760-09-13T00:00:00Z")
          .put("data", new JsonObject().put("queryId", "uid-far")).encode()).status()).as("the last date there is")
          .isEqualTo(201);
    });
  }

  @Test
  void aTtlBeyondTheLargestWholeNumberUpstreamTakesIs400AndOneWithinIsVisible() throws Exception {
    String conversation = "c-ttl-" + java.util.UUID.randomUUID();
    for (Object ttl : List.of(Long.MAX_VALUE, "9223372036854775807", new java.math.BigInteger("18446744073709551617"),
        9_007_199_254_740_992L, "100000000000000000")) {
      TestBroker.Response posted = broker.post("/messages", messages(conversation, ttl));
      assertThat(posted.status()).as("ttl_seconds %s: %s", ttl, posted.body()).isEqualTo(400);
      assertThat(posted.error().getString("message")).contains("ttl_seconds").contains("9007199254740991");
    }
    assertThat(broker.get("/messages?conversation_id=" + conversation).json().getInteger("total")).isZero();

    assertThat(broker.post("/messages", messages(conversation, 9_007_199_254_740_991L)).status()).isEqualTo(200);
    assertThat(broker.get("/messages?conversation_id=" + conversation).json().getInteger("total")).isOne();
  }

  private static String messages(String conversation, Object ttl) {
    return new JsonObject().put("conversation_id", conversation).put("query_id", "q-1").put("ttl_seconds", ttl)
        .put("messages", new io.vertx.core.json.JsonArray().add(new JsonObject().put("role", "user").put("content", "hi")))
        .encode();
  }

  private interface Requests {
    void send() throws Exception;
  }

  /** Sends the requests, then checks that the broker logged no error and no stack trace meanwhile. */
  private static void withoutAnErrorLine(Requests requests) throws Exception {
    CapturedLog log = CapturedLog.all();
    try (log) {
      requests.send();
    }
    assertThat(log.events()).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR)
        || event.getThrowableProxy() != null).as("errors or stack traces").isEmpty();
  }

  private static List<String> concat(List<String> first, List<String> second) {
    return java.util.stream.Stream.concat(first.stream(), second.stream()).toList();
  }

  /** The request with its target in absolute form, naming {@code server}. */
  private static String absolute(String request, java.net.URI server) {
    int target = request.indexOf(' ') + 1;
    return request.substring(0, target) + "http://localhost:" + server.getPort() + request.substring(target);
  }

  private static String withoutHost(String request) {
    return request.replaceFirst("Host: [^\r]*\r\n", "");
  }

  private static String request(String route, String host) {
    String[] parts = route.split(" ", 2);
    boolean body = parts[0].equals("POST") || parts[0].equals("PATCH") || parts[0].equals("PUT");
    return parts[0] + " " + parts[1] + " HTTP/1.1\r\nHost: " + host + "\r\nAccept: application/json, text/event-stream\r\n"
        + (body ? "Content-Type: application/json\r\nContent-Length: 2\r\n" : "") + "Connection: close\r\n\r\n"
        + (body ? "{}" : "");
  }
}
