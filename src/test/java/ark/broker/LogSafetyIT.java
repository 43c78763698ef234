package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Eventually;
import ark.broker.testing.Identities;
import ark.broker.testing.RawHttp;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The log as an operator reads it, from the real jar with its own logging configuration, after clients that try
 * to write in it: an MCP client whose name carries a forged ERROR line and terminal escapes, an Origin header with
 * a line break, credentials in the query and in headers, malformed Host headers on both ports. Every line stays
 * the broker's own, no credential appears, and a malformed Host costs no stack trace; in text and in JSON.
 */
class LogSafetyIT {
  private static final String FORGED = "2026-01-01T00:00:00.000Z ERROR Main - Ark Broker failed: disk wiped";
  private static final String HOSTILE_NAME = "curl\n" + FORGED + "\r\u001b[31m";
  private static final String SECRET = "s3cr3t-credential-";

  @TempDir
  static Path dir;
  static BrokerProcess text;

  @BeforeAll
  static void start() throws Exception {
    text = start(dir.resolve("text"), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    text.close();
  }

  @Test
  void aClientsTextCannotWriteALineOfItsOwn() throws Exception {
    initialize(text, HOSTILE_NAME);
    // A header cannot carry a control character (HTTP refuses it: 400), but it can carry a NEL, a line break to some.
    assertThat(send(text.mcp, "POST /mcp", "localhost", "Origin: http://evil.example.com/\u0085" + FORGED, "{}").status())
        .isEqualTo(403);

    List<String> lines = logged(text);

    assertThat(lines).noneMatch(line -> line.startsWith(FORGED.substring(0, 24)));
    assertThat(lines).allMatch(line -> line.matches("\\d{4}-\\d\\d-\\d\\dT\\S+ (TRACE|DEBUG|INFO |WARN |ERROR) \\S+ - .*"),
        "one event per line, each a line of the broker's own");
    assertThat(lines).anyMatch(line -> line.contains("MCP session") && line.contains("curl\\n" + FORGED + "\\r\\u001b[31m"));
    assertThat(lines).anyMatch(line -> line.contains("Invalid Origin header: http://evil.example.com/\\u0085" + FORGED));
    assertThat(String.join("\n", lines)).doesNotContain("\u001b").doesNotContain("\u0085");
  }

  @Test
  void noCredentialIsLoggedWhereverAClientPutsIt() throws Exception {
    assertThat(send(text.base, "GET /questions?access_token=" + SECRET + "query&status=pending", "localhost", null, null)
        .status()).isEqualTo(401);
    send(text.base, "GET /?code=" + SECRET + "code&state=x", "localhost", null, null);
    send(text.base, "GET /channels/email/answer?token=" + SECRET + "link", "localhost", null, null);
    assertThat(send(text.base, "GET /whoami", "localhost", "Authorization: Bearer " + SECRET + "bearer\r\nCookie: session="
        + SECRET + "cookie\r\nX-Api-Key: " + SECRET + "key", null).status()).isEqualTo(401);
    assertThat(send(text.mcp, "POST /mcp", "localhost", "Authorization: Bearer " + SECRET + "mcp", "{}").status())
        .isEqualTo(401);

    List<String> lines = logged(text);

    assertThat(String.join("\n", lines)).doesNotContain(SECRET);
    assertThat(lines).anyMatch(line -> line.contains("GET /questions?access_token=[redacted]&status=pending 401"));
  }

  @Test
  void malformedHostsOnBothPortsAre400WithoutAStackTrace() throws Exception {
    for (String host : List.of("a@b", "x#y")) {
      assertThat(send(text.base, "GET /questions", host, null, null).status()).isEqualTo(400);
      assertThat(send(text.base, "GET /healthz", host, null, null).status()).isEqualTo(400);
      assertThat(send(text.mcp, "POST /mcp", host, null, "{}").status()).isEqualTo(400);
    }

    List<String> lines = logged(text);

    assertThat(lines).noneMatch(line -> line.matches("\\S+ ERROR .*"));
    assertThat(lines.stream().filter(line -> line.contains("malformed request"))).as("one rate-limited WARN a port")
        .hasSizeLessThanOrEqualTo(2);
  }

  @Test
  void inJsonEveryLineIsOneEventWhateverAClientSent() throws Exception {
    try (BrokerProcess json = start(dir.resolve("json"), Map.of("LOG_FORMAT", "json"))) {
      initialize(json, HOSTILE_NAME);
      send(json.mcp, "POST /mcp", "localhost", "Origin: http://evil.example.com/\u0085\u2028" + FORGED, "{}");
      send(json.base, "GET /questions?access_token=" + SECRET, "localhost", null, null);

      List<String> lines = logged(json);

      assertThat(lines).isNotEmpty().allSatisfy(line -> assertThat(new JsonObject(line).getString("level")).isNotNull());
      assertThat(lines).anyMatch(line -> new JsonObject(line).getString("formattedMessage").contains("curl\n" + FORGED));
      assertThat(String.join("\n", lines)).doesNotContain(SECRET).doesNotContain("\u0085").doesNotContain("\u2028");
    }
  }

  private static BrokerProcess start(Path data, Map<String, String> environment) throws Exception {
    JsonObject auth = Identities.config(dir).getJsonObject("auth");
    Map<String, String> settings = new HashMap<>(Map.of("AUTH_MODE", auth.getString("mode"),
        "AUTH_TOKENS_FILE", auth.getString("tokensFile"), "HTTP_ACCESS_LOG", "true", "ACCESS_LOG_LEVEL", "INFO"));
    settings.putAll(environment);
    return BrokerProcess.start(data, BrokerProcess.freePort(), settings);
  }

  private static void initialize(BrokerProcess broker, String clientName) throws Exception {
    String initialize = new JsonObject().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize")
        .put("params", new JsonObject().put("protocolVersion", "2025-11-25").put("capabilities", new JsonObject())
            .put("clientInfo", new JsonObject().put("name", clientName).put("version", "1")))
        .encode();
    assertThat(send(broker.mcp, "POST /mcp", "localhost", "Authorization: Bearer " + Identities.ADMIN, initialize).status())
        .isEqualTo(200);
  }

  /** The broker's log so far, once every request sent before has its line (the log is written behind a queue). */
  private static List<String> logged(BrokerProcess broker) throws Exception {
    String marker = "/healthz?cursor=" + System.nanoTime();
    send(broker.base, "GET " + marker, "localhost", null, null);
    Eventually.until("the access log line of " + marker, broker::output, output -> output.contains(marker));
    return broker.output().lines().filter(line -> !line.isBlank()).toList();
  }

  private static RawHttp.Answer send(URI server, String requestLine, String host, String headers, String body) throws Exception {
    StringBuilder request = new StringBuilder(requestLine).append(" HTTP/1.1\r\nHost: ").append(host)
        .append("\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n");
    if (headers != null) {
      request.append(headers).append("\r\n");
    }
    if (body != null) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      request.append("Content-Type: application/json\r\nContent-Length: ").append(bytes.length).append("\r\n\r\n")
          .append(new String(bytes, StandardCharsets.ISO_8859_1));
    } else {
      request.append("\r\n");
    }
    return RawHttp.send(server, request.toString());
  }
}
