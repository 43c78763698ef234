package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * One text/event-stream response. Every event carries an id {@code <token>.<n>}, so the client can
 * name where it stopped when it reconnects.
 */
final class SseChannel {
  private static final Buffer HEARTBEAT = Buffer.buffer(": keep-alive\n\n");

  private final HttpServerResponse response;
  private final String token;
  private long sequence;
  private boolean ended;

  SseChannel(HttpServerResponse response, String token) {
    this.response = response;
    this.token = token;
  }

  /** Sends the headers and, for clients that understand it, a priming event with the reconnection delay. */
  void open(boolean priming, long retryMillis) {
    response.setStatusCode(200)
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Accel-Buffering", "no");
    if (priming) {
      response.write("id: " + nextId() + "\nretry: " + retryMillis + "\ndata: \n\n");
    } else {
      response.write(": stream open\n\n");
    }
  }

  void send(JsonNode message) {
    if (!isEnded()) {
      response.write(event(message));
    }
  }

  /** Sends the last message and ends the stream in one write, so the client has it in one packet. */
  void endWith(JsonNode message) {
    if (!isEnded()) {
      response.end(event(message));
    }
    ended = true;
  }

  void heartbeat() {
    if (!isEnded()) {
      response.write(HEARTBEAT);
    }
  }

  void end() {
    if (!isEnded()) {
      response.end();
    }
    ended = true;
  }

  /** Whether the client has an id to resume this stream from. */
  boolean sentAnEventId() {
    return sequence > 0;
  }

  boolean isEnded() {
    return ended || response.closed();
  }

  private String event(JsonNode message) {
    return "event: message\nid: " + nextId() + "\ndata: " + McpJson.write(message) + "\n\n";
  }

  private String nextId() {
    return token + "." + (sequence++);
  }
}
