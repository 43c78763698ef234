package ark.broker.http;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * One event stream in the dialect of Ark's broker, which ark-api relays line by line and the dashboard reads with
 * EventSource's {@code onmessage}: {@code : connected} at once, {@code : heartbeat} while idle, and each item as one
 * unnamed single-line {@code data:} event. A reader that lets too much pile up unread is cut off: it resumes with
 * its cursor, and the broker keeps no backlog for it.
 */
final class ArkSse {
  private static final Buffer CONNECTED = Buffer.buffer(": connected\n\n");
  private static final Buffer HEARTBEAT = Buffer.buffer(": heartbeat\n\n");
  private static final byte[] DATA = "data: ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] END = {'\n', '\n'};

  private final Vertx vertx;
  private final HttpServerResponse response;
  private final Runnable gone;
  private long heartbeat = -1;
  private boolean ended;

  private ArkSse(Vertx vertx, HttpServerResponse response, Runnable gone) {
    this.vertx = vertx;
    this.response = response;
    this.gone = gone;
  }

  /**
   * Sends the stream's headers and {@code : connected} now, and a heartbeat every {@code heartbeatMillis}.
   *
   * @param maxUnreadBytes what may wait unread before the reader is cut off
   * @param gone runs once, when the stream ends for any reason
   */
  static ArkSse open(Vertx vertx, HttpServerResponse response, long heartbeatMillis, long maxUnreadBytes, Runnable gone) {
    ArkSse sse = new ArkSse(vertx, response, gone);
    response.setChunked(true).setStatusCode(200)
        .putHeader("Content-Type", "text/event-stream")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("Connection", "keep-alive")
        .putHeader("X-Accel-Buffering", "no")
        .setWriteQueueMaxSize((int) Math.min(Integer.MAX_VALUE, maxUnreadBytes));
    response.write(CONNECTED);
    sse.heartbeat = vertx.setPeriodic(heartbeatMillis, tick -> sse.write(HEARTBEAT));
    response.closeHandler(closed -> sse.stopped());
    return sse;
  }

  /** One item as a {@code data:} event; a reader too far behind is cut off instead. */
  void data(byte[] json) {
    write(Buffer.buffer(json.length + 8).appendBytes(DATA).appendBytes(json).appendBytes(END));
  }

  /** {@code data: <text>} as it is, such as {@code [DONE]}. */
  void dataText(String text) {
    data(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  boolean ended() {
    return ended;
  }

  /** Whether the reader keeps up: when not, {@link #whenDrained} says when to go on writing. */
  boolean writable() {
    return !ended && !response.writeQueueFull();
  }

  void whenDrained(Runnable next) {
    response.drainHandler(drained -> next.run());
  }

  void end() {
    if (!ended) {
      stopped();
      response.end();
    }
  }

  private void write(Buffer frame) {
    if (ended) {
      return;
    }
    if (response.writeQueueFull()) {
      // The reader stopped reading: it resumes from its cursor, with nothing held for it here.
      stopped();
      response.reset();
      return;
    }
    response.write(frame);
  }

  private void stopped() {
    if (ended) {
      return;
    }
    ended = true;
    vertx.cancelTimer(heartbeat);
    gone.run();
  }
}
