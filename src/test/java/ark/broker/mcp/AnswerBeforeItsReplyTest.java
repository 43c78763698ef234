package ark.broker.mcp;

import ark.broker.testing.BrokerExtension;
import ark.broker.testing.Eventually;
import ark.broker.testing.McpTestClient;
import ark.broker.testing.TestBroker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An agent waiting in a plain {@code ask_question} call has the answer on its stream by the time the person's PATCH
 * gets its 2xx, also with many answers in flight at once: the broker writes the result before it replies to the
 * answer (both after the answer is in the log).
 */
class AnswerBeforeItsReplyTest {
  /**
   * Answers in flight at once: a burst. With 32 this test's own client reads replies too slowly to tell; with 200 the
   * broker without the hand-over sent some 200s before their agents' results.
   */
  private static final int AGENTS = 200;

  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject(), started -> broker = started);

  @Test
  void whenTheAnswersReplyArrivesTheWaitingAgentsStreamAlreadyHasTheResult() throws Exception {
    McpTestClient session = new McpTestClient(broker.mcp).initialize();
    List<WaitingAgent> agents = new ArrayList<>();
    try {
      for (int i = 0; i < AGENTS; i++) {
        agents.add(new WaitingAgent(session, TestBroker.someone()));
      }
      for (WaitingAgent agent : agents) {
        agent.question = Eventually.until("the question of " + agent.recipient, () -> broker.get(
            "/questions?status=pending&recipient=" + agent.recipient).json().getJsonArray("items"),
            items -> !items.isEmpty()).getJsonObject(0).getString("id");
      }

      List<CompletableFuture<String>> onReply = new ArrayList<>();
      for (WaitingAgent agent : agents) {
        onReply.add(broker.http.sendAsync(HttpRequest.newBuilder(broker.base.resolve("/questions/" + agent.question))
                .header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(new JsonObject().put("response", agent.answer()).encode()))
                .build(), HttpResponse.BodyHandlers.ofString())
            .thenApply(reply -> {
              assertThat(reply.statusCode()).as(reply.body()).isEqualTo(200);
              // What the agent's connection holds the moment the answer's reply is in: nothing read later counts.
              return agent.readWithoutWaiting();
            }));
      }

      for (int i = 0; i < AGENTS; i++) {
        assertThat(onReply.get(i).join()).as("what agent %d's stream held when the answer's 200 arrived", i)
            .contains("\"response\":\"" + agents.get(i).answer() + "\"");
      }
    } finally {
      for (WaitingAgent agent : agents) {
        agent.socket.close();
      }
    }
  }

  /** A plain {@code ask_question} call on a connection of its own, read by hand to see what has arrived so far. */
  private static final class WaitingAgent {
    final String recipient;
    final Socket socket;
    final ByteArrayOutputStream received = new ByteArrayOutputStream();
    String question;

    WaitingAgent(McpTestClient session, String recipient) throws IOException {
      this.recipient = recipient;
      byte[] call = session.message("tools/call", new JsonObject().put("name", "ask_question").put("arguments",
              new JsonObject().put("recipient", recipient).put("content", "Proceed?").put("waitSeconds", 300)
                  .put("options", new JsonArray().add(answer()).add("no"))))
          .encode().getBytes(StandardCharsets.UTF_8);
      socket = new Socket(broker.mcp.getHost(), broker.mcp.getPort());
      socket.getOutputStream().write(("POST " + broker.mcp.getPath() + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
          + "Mcp-Session-Id: " + session.sessionId + "\r\nMCP-Protocol-Version: " + session.protocolVersion + "\r\n"
          + "Content-Length: " + call.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(call);
      socket.getOutputStream().flush();
    }

    String answer() {
      return "yes, " + recipient.substring(recipient.lastIndexOf('/') + 1);
    }

    /** Everything the connection has received so far (the stream's head and events), without waiting for more. */
    String readWithoutWaiting() {
      try {
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[8192];
        for (int available = in.available(); available > 0; available = in.available()) {
          received.write(buffer, 0, in.read(buffer, 0, Math.min(available, buffer.length)));
        }
        return received.toString(StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
