package ark.broker;

import ark.broker.testing.ArkCallersFuzz;
import ark.broker.testing.BrokerProcess;
import ark.broker.testing.RawHttp;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile and careless requests, generated from one seed, sent over raw TCP to every surface of a real
 * broker process (REST, watch streams, MCP, the channel endpoints, Ark's broker routes with their callers' bodies
 * mutated and compressed or not): none gets a 5xx or goes unanswered,
 * the broker stays responsive, what was refused changed nothing (the questions are exactly those whose
 * writes were acknowledged), and after kill -9 every acknowledged write is still there. The seed is
 * printed and named in every failure; {@code -Dfuzz.seed=N} replays a run.
 */
class FuzzIT {
  private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
  private static final int REQUESTS = Integer.getInteger("fuzz.requests", 20_000);
  private static final int CLIENTS = 8;

  @TempDir
  Path dataDir;

  /** Question id -> the status its acknowledged writes left it in. */
  private final Map<String, String> acknowledged = new ConcurrentHashMap<>();
  private final List<String> sessions = new CopyOnWriteArrayList<>();
  /** Event ids the broker issued, each with the session it issued it to. */
  private final List<String[]> issuedEventIds = new CopyOnWriteArrayList<>();
  private final List<String> failures = new CopyOnWriteArrayList<>();
  private final AtomicInteger sent = new AtomicInteger();

  @Test
  void hostileRequestsGetNo5xxChangeNothingAndLoseNothing() throws Exception {
    System.out.println("fuzz seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
    int port = BrokerProcess.freePort();
    try (BrokerProcess broker = BrokerProcess.start(dataDir, port, Map.of())) {
      ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
      List<Future<?>> running = new ArrayList<>();
      for (int client = 0; client < CLIENTS; client++) {
        Random random = new Random(SEED + client);
        running.add(clients.submit(() -> fuzz(broker, random)));
      }
      for (Future<?> client : running) {
        client.get(10, TimeUnit.MINUTES);
      }
      clients.shutdown();

      assertThat(failures).as("requests answered wrongly (seed " + SEED + ")").isEmpty();
      assertThat(issuedEventIds).as("event ids the broker issued, to forge resumptions from (seed " + SEED + ")").isNotEmpty();
      assertThat(RawHttp.send(broker.base, get("/healthz")).status()).as("alive (seed " + SEED + ")").isEqualTo(200);
      assertThat(questionsOf(broker.base)).as("exactly the acknowledged writes (seed " + SEED + ")").isEqualTo(acknowledged);
      broker.kill();
    }
    try (BrokerProcess restarted = BrokerProcess.start(dataDir, port, Map.of())) {
      assertThat(questionsOf(restarted.base)).as("after kill -9 (seed " + SEED + ")").isEqualTo(acknowledged);
    }
    assertThat(sent.get()).isGreaterThanOrEqualTo(REQUESTS);
  }

  private void fuzz(BrokerProcess broker, Random random) {
    for (int i = 0; i < REQUESTS / CLIENTS; i++) {
      int kind = random.nextInt(100);
      try {
        if (kind < 10) {
          create(broker.base, random);
        } else if (kind < 30) {
          expectRefused(broker.base, "POST", "/questions", mutatedQuestion(random), random);
        } else if (kind < 40) {
          settle(broker.base, random);
        } else if (kind < 50) {
          expectAnswered(broker.base, rawRequest(random.nextBoolean() ? "PATCH" : "DELETE",
              "/questions/" + (random.nextBoolean() ? "q-" + random.nextInt(1000) : junk(random, 20, true)),
              "application/json", mutatedAnswer(random)), false);
        } else if (kind < 60) {
          expectAnswered(broker.base, get(readTarget(random)), false);
        } else if (kind < 65) {
          expectAnswered(broker.base, protocolGarbage(random), true);
        } else if (kind < 70) {
          malformedAuthority(random.nextBoolean() ? broker.base : broker.mcp, random);
        } else if (kind < 90) {
          mcp(broker.mcp, random);
        } else if (kind < 95) {
          expectAnswered(broker.base, ArkCallersFuzz.request(random), false);
        } else {
          expectAnswered(broker.base, rawRequest("POST", "/channels/" + pick(random, "slack", "github", "webhook", "x")
              + "/events", pick(random, "application/json", "application/x-www-form-urlencoded"),
              junk(random, 200, false)), false);
        }
      } catch (Exception e) {
        failures.add("kind " + kind + ": " + e);
      }
      sent.incrementAndGet();
    }
  }

  // ---- REST ----

  private void create(URI base, Random random) throws Exception {
    JsonObject question = new JsonObject()
        .put("recipient", "ark://users/u" + random.nextInt(20))
        .put("content", "Question " + random.nextInt());
    if (random.nextBoolean()) {
      question.put("options", new JsonArray().add("yes").add("no"));
    }
    if (random.nextInt(4) == 0) {
      question.put("idempotencyKey", "key-" + random.nextInt(50));
    }
    RawHttp.Answer answer = expectAnswered(base, rawRequest("POST", "/questions", "application/json", question.encode()), false);
    if (answer.status() == 201 || answer.status() == 200) {
      JsonObject created = new JsonObject(answer.body());
      acknowledged.putIfAbsent(created.getString("id"), created.getString("status"));
    }
  }

  /** Answers or cancels a question that exists; a 2xx is what it now is, a 409 means another write came first. */
  private void settle(URI base, Random random) throws Exception {
    List<String> ids = new ArrayList<>(acknowledged.keySet());
    if (ids.isEmpty()) {
      return;
    }
    String id = ids.get(random.nextInt(ids.size()));
    boolean answer = random.nextBoolean();
    RawHttp.Answer settled = expectAnswered(base, answer
        ? rawRequest("PATCH", "/questions/" + id, "application/json", "{\"response\":\"" + pick(random, "yes", "no", "maybe") + "\"}")
        : rawRequest("DELETE", "/questions/" + id, null, null), false);
    if (settled.status() == 200) {
      acknowledged.put(id, new JsonObject(settled.body()).getString("status"));
    }
  }

  private void expectRefused(URI base, String method, String path, String body, Random random) throws Exception {
    String type = random.nextInt(10) == 0 ? pick(random, "text/plain", "application/xml", "") : "application/json";
    RawHttp.Answer answer = expectAnswered(base, rawRequest(method, path, type, body), false);
    if (answer.status() < 400) {
      // A mutation that happened to stay valid: it is an acknowledged write like any other.
      JsonObject created = new JsonObject(answer.body());
      acknowledged.putIfAbsent(created.getString("id"), created.getString("status"));
    }
  }

  private static String mutatedQuestion(Random random) {
    Map<String, Object> fields = new HashMap<>(Map.of("recipient", "ark://users/u1", "content", "Deploy?"));
    switch (random.nextInt(12)) {
      case 0 -> fields.remove(pick(random, "recipient", "content"));
      case 1 -> fields.put(pick(random, "recipient", "content", "options", "priority", "blocking", "ttlSeconds",
          "expiresAt", "channels", "query", "toolCallId", "sender"), wrongValue(random));
      case 2 -> fields.put(junk(random, 12, true), "unknown field");
      case 3 -> fields.put("content", "x".repeat(random.nextInt(200_000)));
      case 4 -> fields.put("recipient", junk(random, 40, false));
      case 5 -> fields.put("options", new JsonArray().add("a").add("a"));
      case 6 -> fields.put("expiresAt", pick(random, "yesterday", "1970-01-01T00:00:00Z", "2026-13-45T99:99:99Z"));
      default -> {
        return pick(random, "", "{", "[]", "null", "\"text\"", "{\"recipient\":\"ark://users/a\",\"content\":\"x\"} trailing",
            "{\"recipient\":\"ark://users/a\",\"recipient\":\"ark://users/b\",\"content\":\"x\"}",
            "[".repeat(5000) + "]".repeat(5000), junk(random, 300, false),
            "{\"recipient\":\"ark://users/a\",\"content\":\"\uDC00\"}");
      }
    }
    return new JsonObject(fields).encode();
  }

  private static Object wrongValue(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> random.nextInt();
      case 1 -> random.nextBoolean();
      case 2 -> new JsonObject().put("nested", junk(random, 10, true));
      case 3 -> new JsonArray().add(1).add("two");
      case 4 -> "";
      default -> junk(random, 30, false);
    };
  }

  private static String mutatedAnswer(Random random) {
    return pick(random, "", "{}", "{\"response\":1}", "{\"response\":null}", "{\"response\":\"\"}",
        "{\"response\":\"" + "y".repeat(random.nextInt(100_000)) + "\"}", "{\"answeredBy\":\"nobody\"}",
        "{\"response\":\"ok\",\"extra\":true}", junk(random, 100, false));
  }

  private static String readTarget(Random random) {
    return pick(random, "/questions?limit=" + pick(random, "-1", "0", "abc", "99999999999", "5"),
        "/questions?status=" + junk(random, 8, true), "/questions?continue=" + junk(random, 30, true),
        "/questions?watch=true&resourceVersion=" + pick(random, "abc", "-5", "999999999999", "0"),
        "/questions?watch=" + pick(random, "maybe", "true", "1"), "/questions?limit=1&limit=2",
        "/questions/" + junk(random, 30, true), "/questions?sender=" + junk(random, 20, true),
        "/" + junk(random, 20, true), "/readyz", "/metrics", "/../../etc/passwd", "/questions?resourceVersion=3");
  }

  // ---- the HTTP layer itself ----

  private static String protocolGarbage(Random random) {
    return switch (random.nextInt(10)) {
      case 0 -> junk(random, 200, false) + "\r\n\r\n";
      case 1 -> "GET /questions HTTP/1.1\r\nConnection: close\r\n\r\n";
      case 2 -> "GET /questions/%zz%" + junk(random, 2, true) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      case 3 -> "POST /questions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
          + "Connection: close\r\n\r\n" + pick(random, "ZZ", "-1", "fffffffffffffff", "5") + "\r\n{\"a\":1}\r\n0\r\n\r\n";
      case 4 -> "GET /questions HTTP/1.1\r\nHost: x\r\nX-Big: " + "h".repeat(10_000 + random.nextInt(20_000))
          + "\r\nConnection: close\r\n\r\n";
      case 5 -> "POST /questions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\n"
          + "Content-Length: 50\r\nConnection: close\r\n\r\n{\"a\":1}";
      case 6 -> pick(random, "BREW", "TRACE", "CONNECT", "PROPFIND") + " /questions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      case 7 -> "GET http://evil.example.com/questions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      case 8 -> "GET /" + "a".repeat(5_000 + random.nextInt(10_000)) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
      default -> "GET /questions HTTP/1.0\r\n\r\n";
    };
  }

  // ---- MCP ----

  private void mcp(URI mcp, Random random) throws Exception {
    String session = sessions.isEmpty() || random.nextInt(5) == 0 ? null : sessions.get(random.nextInt(sessions.size()));
    JsonObject message = new JsonObject().put("jsonrpc", "2.0").put("id", random.nextInt(1000));
    switch (random.nextInt(9)) {
      case 0 -> message.put("method", "initialize").put("params", new JsonObject().put("protocolVersion", "2025-11-25")
          .put("capabilities", new JsonObject()).put("clientInfo", new JsonObject().put("name", "fuzz").put("version", "1")));
      case 1 -> message.put("method", pick(random, "tools/list", "ping", "resources/list", "tasks/list", "prompts/list"));
      case 2 -> message.put("method", junk(random, 15, true)).put("params", wrongValue(random));
      case 3 -> message.put("method", "tools/call").put("params", new JsonObject().put("name", pick(random, "ask_question",
          "get_question", "cancel_question", "list_pending_questions", "nope")).put("arguments", new JsonObject()
          .put(pick(random, "recipient", "questionId", "content", "waitSeconds"), wrongValue(random))));
      case 4 -> message.put("method", pick(random, "tasks/get", "tasks/result", "tasks/cancel"))
          .put("params", new JsonObject().put("taskId", pick(random, "q-" + random.nextInt(100), junk(random, 40, true))));
      case 5 -> message.put("method", pick(random, "resources/read", "resources/subscribe", "resources/unsubscribe"))
          .put("params", new JsonObject().put("uri", pick(random, "ark://questions/q-" + random.nextInt(50),
              "ark://questions/pending", junk(random, 60, true))));
      case 6 -> message.put("jsonrpc", pick(random, "1.0", "", "2")).put("method", "ping");
      case 7 -> {
        forgedResumption(mcp, session, random);
        return;
      }
      default -> {
        expectAnswered(mcp, mcpRequest(mcp, "POST", session, pick(random, "[]", "[1,2]", "{", "", junk(random, 100, false),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing"), null), false);
        return;
      }
    }
    RawHttp.Answer answer = expectAnswered(mcp, mcpRequest(mcp, "POST", session, message.encode(), null), false);
    String issued = header(answer, "mcp-session-id");
    if (issued != null && answer.status() == 200) {
      sessions.add(issued);
    }
  }

  /**
   * A resumption the broker did not issue to the session that sends it: made up, an issued one changed, or an issued
   * one sent by another session. It must be refused at once (400), never resume a stream; now and then a session
   * first gets a real event id to forge from, with a tasks/result that waits.
   */
  private void forgedResumption(URI mcp, String session, Random random) throws Exception {
    if (session == null) {
      return;
    }
    List<String> ids = new ArrayList<>(acknowledged.keySet());
    if (random.nextInt(4) == 0 && !ids.isEmpty()) {
      String waiting = mcpRequest(mcp, "POST", session, new JsonObject().put("jsonrpc", "2.0").put("id", random.nextInt(1000))
          .put("method", "tasks/result").put("params", new JsonObject().put("taskId", ids.get(random.nextInt(ids.size()))))
          .encode(), null);
      RawHttp.Answer stream = expectAnswered(mcp, waiting, false);
      java.util.regex.Matcher id = java.util.regex.Pattern.compile("(?m)^id: (\\S+)$").matcher(stream.text());
      if (id.find()) {
        issuedEventIds.add(new String[] {session, id.group(1)});
      }
      return;
    }
    String eventId = forgedEventId(random);
    if (!issuedEventIds.isEmpty() && random.nextBoolean()) {
      String[] issued = issuedEventIds.get(random.nextInt(issuedEventIds.size()));
      eventId = issued[0].equals(session) ? changed(issued[1], random) : issued[1];
    }
    String resumption = mcpRequest(mcp, "GET", session, null, "Last-Event-ID: " + eventId);
    RawHttp.Answer answer = check(resumption, RawHttp.sendUntilEnd(mcp, resumption, Duration.ofSeconds(10)), false);
    // A session that ended meanwhile is 404 before its event id is looked at.
    if (answer.status() != 400 && answer.status() != 404) {
      failures.add("a forged resumption got " + abbreviated(answer.text()) + " for " + eventId);
    }
  }

  /** An issued event id with one character of its token or its signature changed (one that carries six bits). */
  private static String changed(String eventId, Random random) {
    String[] parts = eventId.split("\\.");
    int part = random.nextInt(2);
    int at = random.nextInt(parts[part].length() - 1);
    char replaced = parts[part].charAt(at) == 'A' ? 'g' : 'A';
    parts[part] = parts[part].substring(0, at) + replaced + parts[part].substring(at + 1);
    return String.join(".", parts);
  }

  private static String forgedEventId(Random random) {
    String state = pick(random, "{\"k\":\"ask\",\"q\":123}", "{\"k\":\"task\",\"q\":[1,2]}", "{\"k\":7}", "{}",
        "{\"k\":\"ask\",\"q\":\"q-1\",\"p\":{\"x\":1}}", junk(random, 30, false));
    String token = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(state.getBytes(StandardCharsets.UTF_8));
    return token + pick(random, "", "." + junk(random, 43, true), ".AAAA") + "." + pick(random, "1", "-1", "x", "99999999999999999999");
  }

  /**
   * A request whose Host, or absolute-form target, names no valid authority: 400 with the port's JSON error on every
   * route, never a 5xx.
   */
  private void malformedAuthority(URI server, Random random) throws Exception {
    // Malformed in a target too; in a Host header, so are the characters that would end a target's authority.
    String authority = pick(random, "a@b", "a b", "[::1", "host:99999", "a\\b", "\"a\"", "[zz]",
        "user@" + junk(random, 10, true), "h:" + junk(random, 6, true) + "x");
    String hostOnly = pick(random, authority, "x#y", "a/b", "a?b");
    String route = pick(random, "GET /questions", "POST /questions", "GET /healthz", "GET /", "GET /whoami", "GET /mcp",
        "POST /mcp", "GET /.well-known/oauth-protected-resource", "POST /channels/slack/events", "GET /nothing");
    String[] parts = route.split(" ");
    String request = random.nextBoolean()
        ? parts[0] + " " + parts[1] + " HTTP/1.1\r\nHost: " + hostOnly + "\r\nConnection: close\r\n\r\n"
        : parts[0] + " http://" + authority + parts[1] + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    RawHttp.Answer answer = expectAnswered(server, request, false);
    // A space in an absolute-form target breaks the request line itself: the codec's 400.
    if (answer.status() != 400 || !answer.body().startsWith("{")) {
      failures.add("a malformed authority got " + abbreviated(answer.text()) + " for " + abbreviated(request));
    }
  }

  private static String mcpRequest(URI mcp, String method, String session, String body, String extraHeader) {
    StringBuilder request = new StringBuilder(method).append(' ').append(mcp.getPath()).append(" HTTP/1.1\r\n")
        .append("Host: localhost\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\n");
    if (session != null) {
      request.append("Mcp-Session-Id: ").append(session).append("\r\nMCP-Protocol-Version: 2025-11-25\r\n");
    }
    if (extraHeader != null) {
      request.append(extraHeader).append("\r\n");
    }
    return withBody(request, "application/json", body);
  }

  // ---- sending and checking ----

  /**
   * Sends and checks that an answer came, and not a 5xx. A request that is not HTTP at all may be cut off
   * without an answer; anything else must be answered. An event stream counts as answered at its headers.
   */
  private RawHttp.Answer expectAnswered(URI server, String request, boolean mayCloseSilently) throws Exception {
    return check(request, RawHttp.send(server, request, Duration.ofSeconds(15)), mayCloseSilently);
  }

  private RawHttp.Answer check(String request, RawHttp.Answer answer, boolean mayCloseSilently) {
    String wrong = !answer.complete() ? "no end within the time limit"
        : answer.status() == 0 && !mayCloseSilently ? "no answer"
        : answer.status() >= 500 ? "status " + answer.status() : null;
    if (wrong != null) {
      failures.add(wrong + " to " + abbreviated(request) + " -> " + abbreviated(answer.text()));
    }
    return answer;
  }

  private static Map<String, String> questionsOf(URI base) throws Exception {
    Map<String, String> questions = new HashMap<>();
    String next = null;
    do {
      RawHttp.Answer page = RawHttp.send(base, get("/questions?limit=1000" + (next == null ? "" : "&continue=" + next)),
          Duration.ofSeconds(30));
      JsonObject list = new JsonObject(page.body());
      list.getJsonArray("items").forEach(item -> questions.put(((JsonObject) item).getString("id"),
          ((JsonObject) item).getString("status")));
      next = list.getString("continue");
    } while (next != null);
    return questions;
  }

  private static String get(String target) {
    return rawRequest("GET", target, null, null);
  }

  private static String rawRequest(String method, String target, String contentType, String body) {
    StringBuilder request = new StringBuilder(method).append(' ').append(target.replace(" ", "%20"))
        .append(" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    return withBody(request, contentType, body);
  }

  private static String withBody(StringBuilder request, String contentType, String body) {
    if (body != null) {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      if (contentType != null && !contentType.isEmpty()) {
        request.append("Content-Type: ").append(contentType).append("\r\n");
      }
      request.append("Content-Length: ").append(bytes.length).append("\r\n\r\n")
          .append(new String(bytes, StandardCharsets.ISO_8859_1));
    } else {
      request.append("\r\n");
    }
    return request.toString();
  }

  private static String header(RawHttp.Answer answer, String name) {
    for (String line : answer.text().split("\r\n")) {
      if (line.isEmpty()) {
        return null;
      }
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
        return line.substring(colon + 1).trim();
      }
    }
    return null;
  }

  /** Random text: URL-safe characters only when {@code safe}, else anything, control characters included. */
  private static String junk(Random random, int maxLength, boolean safe) {
    String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~";
    StringBuilder text = new StringBuilder();
    for (int i = random.nextInt(maxLength + 1); i > 0; i--) {
      text.append(safe ? alphabet.charAt(random.nextInt(alphabet.length())) : (char) random.nextInt(0x300));
    }
    return text.toString();
  }

  @SafeVarargs
  private static <T> T pick(Random random, T... choices) {
    return choices[random.nextInt(choices.length)];
  }

  private static String abbreviated(String text) {
    String line = text.replace("\r\n", "\\r\\n");
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }
}
