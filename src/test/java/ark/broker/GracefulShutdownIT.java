package ark.broker;

import ark.broker.testing.BrokerProcess;
import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.RawHttp;
import ark.broker.testing.SseStream;
import ark.broker.testing.SseStream.SseEvent;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Asked to stop (SIGTERM, as Kubernetes and Docker ask), the jar stops the way a rolling restart needs: /readyz
 * answers 503 first while everything is still served (responses asking clients to reconnect), then it accepts no
 * connection, ends watches and waiting MCP calls so their clients resume elsewhere, lets running requests finish,
 * writes one line at the start and one at the end, and exits 0, within its configured bounds.
 */
class GracefulShutdownIT {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final String BODY = "{\"recipient\":\"ark://users/ops\",\"content\":\"Uploaded slowly?\"}";

  @TempDir
  Path dataDir;

  @Test
  void sigtermDrainsFinishesWhatRunsAndExitsZeroAndClientsResumeOnTheNextBroker() throws Exception {
    Map<String, String> environment = new HashMap<>(BrokerProcess.fixedMcpPort());
    environment.put("SHUTDOWN_DELAY_SECONDS", "2");
    environment.put("SHUTDOWN_TIMEOUT_SECONDS", "20");
    int port = BrokerProcess.freePort();
    String lastWatched;
    String callEventId;
    String questionId;
    String uploadedId;
    McpTestClient agent;
    try (BrokerProcess broker = BrokerProcess.start(dataDir, port, environment)) {
      SseStream watch = watch(broker.base, null);
      agent = new McpTestClient(broker.mcp).initialize();
      JsonObject call = agent.message("tools/call", new JsonObject().put("name", "ask_question").put("arguments",
          new JsonObject().put("recipient", "ark://users/ops").put("content", "Roll out?")));
      SseStream waiting = agent.stream(call);
      callEventId = waiting.next().id();
      SseStream standalone = agent.get(null);
      assertThat(standalone.next().data()).as("the priming event").isEmpty();
      questionId = watch.next().json().getString("id");
      try (Socket upload = startUpload(broker.base)) {
        broker.terminate();

        RawHttp.Answer notReady = Eventually.until("/readyz says the broker is stopping",
            () -> RawHttp.send(broker.base, request("GET", "/readyz", "", "Connection: close")),
            response -> response.status() == 503);
        assertThat(new JsonObject(notReady.body()).getJsonObject("error").getString("message"))
            .isEqualTo("not ready: shutting down");
        // A client that keeps its connection alive: the server asks it to reconnect, and closes the connection.
        RawHttp.Answer duringDelay = RawHttp.send(broker.base, request("POST", "/questions", BODY, "Connection: keep-alive"));
        assertThat(duringDelay.status()).as("still served during the delay").isEqualTo(201);
        assertThat(duringDelay.complete()).as("the connection closed after the response").isTrue();
        assertThat(duringDelay.text().toLowerCase(Locale.ROOT)).as("asking the client to reconnect").contains("connection: close");
        assertThat(RawHttp.send(broker.base, request("GET", "/healthz", "", "Connection: close")).status()).isEqualTo(200);

        lastWatched = watch.next().id();
        assertThat(eventsUntilTheEnd(watch)).isEmpty();
        assertThat(comments(watch)).as("the watch ends, saying why").anySatisfy(comment ->
            assertThat(comment).contains("shutting down; reconnect with Last-Event-ID"));
        assertThat(eventsUntilTheEnd(waiting)).as("the waiting call's stream is cut before its result, to be resumed")
            .isEmpty();
        assertThat(eventsUntilTheEnd(standalone)).isEmpty();
        Eventually.until("no new connection is accepted", () -> refused(broker.base), refused -> refused);

        String answer = finishUpload(upload);
        // Read to the end of the stream: the server closed the connection after this response.
        assertThat(answer).as("the request that was still running finishes").startsWith("HTTP/1.1 201");
        uploadedId = new JsonObject(answer.substring(answer.indexOf("\r\n\r\n") + 4)).getString("id");
      }
      assertThat(broker.awaitExit(Duration.ofSeconds(30))).isZero();
      List<String> lines = broker.output().lines().toList();
      assertThat(lines).filteredOn(line -> line.contains("Shutting down:")).singleElement().asString()
          .contains("shutdown.delaySeconds").contains("shutdown.timeoutSeconds");
      assertThat(lines.get(lines.size() - 1)).as("the last line, written out before the exit")
          .contains("Ark Broker stopped in");
      assertThat(broker.output()).doesNotContain(" ERROR ").doesNotContain(" WARN  ServingShutdown");
    }

    // The next broker (here the same one restarted; in a rollout another replica) finishes what was cut.
    try (BrokerProcess next = BrokerProcess.start(dataDir, port, environment)) {
      McpTestClient resumed = new McpTestClient(next.mcp);
      resumed.sessionId = agent.sessionId;
      SseStream call = resumed.get(callEventId);
      SseStream watch = watch(next.base, lastWatched);
      assertThat(patch(next.base, questionId, "{\"response\":\"yes\"}").statusCode()).isEqualTo(200);

      assertThat(McpTestClient.nextResponse(call).getJsonObject("result").getJsonObject("structuredContent")
          .getString("response")).isEqualTo("yes");
      // Nothing missed: the upload that finished after the watch ended, then the answer.
      assertThat(List.of(watch.next(), watch.next())).extracting(SseEvent::event, event -> event.json().getString("id"))
          .containsExactly(tuple("question_created", uploadedId), tuple("question_answered", questionId));
    }
  }

  @Test
  void requestsStillRunningAfterTheTimeoutAreCutAndTheProcessEndsWithinItsBounds() throws Exception {
    Map<String, String> environment = Map.of("SHUTDOWN_DELAY_SECONDS", "1", "SHUTDOWN_TIMEOUT_SECONDS", "2");
    try (BrokerProcess broker = BrokerProcess.start(dataDir, BrokerProcess.freePort(), environment);
         Socket neverFinished = startUpload(broker.base)) {
      long signalled = System.nanoTime();
      broker.terminate();

      assertThat(broker.awaitExit(Duration.ofSeconds(30))).isZero();
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - signalled);
      assertThat(seconds).as("delay + timeout + closing, not more").isLessThan(1 + 2 + ProcessShutdown.CLOSE_SECONDS);
      assertThat(broker.output()).contains("whose requests still ran after the shutdown's grace of 2.0 s")
          .contains("Ark Broker stopped in");
    }
  }

  private static SseStream watch(URI base, String lastEventId) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve("/questions?watch=true"))
        .header("Accept", "text/event-stream");
    if (lastEventId != null) {
      request.header("Last-Event-ID", lastEventId);
    }
    return SseStream.open(HTTP, request.build());
  }

  /** The events a stream still sends until it ends; fails if it does not end. */
  private static List<SseEvent> eventsUntilTheEnd(SseStream stream) throws Exception {
    List<SseEvent> events = new ArrayList<>();
    for (SseEvent event = stream.next(); !event.event().equals("end-of-stream"); event = stream.next()) {
      events.add(event);
    }
    return events;
  }

  /** Every comment line the stream sent. */
  private static List<String> comments(SseStream stream) throws Exception {
    List<String> comments = new ArrayList<>();
    for (String comment = stream.nextComment(0, TimeUnit.SECONDS); comment != null;
         comment = stream.nextComment(0, TimeUnit.SECONDS)) {
      comments.add(comment);
    }
    return comments;
  }

  /** A create whose headers and half its body are sent: a request the server is running. */
  private static Socket startUpload(URI base) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 2000);
    socket.setSoTimeout(20_000);
    OutputStream out = socket.getOutputStream();
    out.write(("POST /questions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
        + BODY.length() + "\r\n\r\n" + BODY.substring(0, BODY.length() / 2)).getBytes(StandardCharsets.US_ASCII));
    out.flush();
    return socket;
  }

  private static String finishUpload(Socket socket) throws IOException {
    socket.getOutputStream().write(BODY.substring(BODY.length() / 2).getBytes(StandardCharsets.US_ASCII));
    InputStream in = socket.getInputStream();
    return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
  }

  private static boolean refused(URI base) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), 1000);
      return false;
    } catch (IOException refused) {
      return true;
    }
  }

  private static String request(String method, String path, String body, String connection) {
    return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + connection + "\r\n"
        + (body.isEmpty() ? "" : "Content-Type: application/json\r\nContent-Length: " + body.length() + "\r\n")
        + "\r\n" + body;
  }

  private static HttpResponse<String> patch(URI base, String id, String json) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(base.resolve("/questions/" + id)).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
