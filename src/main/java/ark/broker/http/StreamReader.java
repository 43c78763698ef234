package ark.broker.http;

import ark.broker.bus.Messages.StreamChunk;
import ark.broker.bus.StreamStore.StreamState;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.List;

/**
 * One reader of one Query's stream ({@code GET /stream/{query}}): the stream's chunks as they were posted (from the
 * beginning, or from now), then {@code data: [DONE]} once the stream ends or a chunk reports the Query's failure,
 * and then the end of the response. While the store's state is read, live chunks wait; the sequence up to which the
 * state holds drops those it already had. A stream that stays quiet gets a timeout error and {@code [DONE]}: no chunk
 * at all within {@code wait-for-query}, or nothing for the configured idle time.
 */
final class StreamReader {
  private static final String TIMEOUT = "{\"error\":{\"message\":\"Request timeout waiting for streaming query response\","
      + "\"type\":\"timeout_error\",\"code\":\"timeout\"}}";
  private static final String IDLE = "{\"error\":{\"message\":\"No chunk and no end of the stream for too long\","
      + "\"type\":\"timeout_error\",\"code\":\"idle_timeout\"}}";

  private final Vertx vertx;
  private final ArkSse sse;
  private final long idleMillis;
  private List<StreamChunk> held = new ArrayList<>();
  /** An end heard while the state was read; -1 for none. */
  private long heldEnd = -1;
  private long through;
  private boolean sentAny;
  private long waitTimer = -1;
  private long idleTimer = -1;

  StreamReader(Vertx vertx, ArkSse sse, long idleMillis) {
    this.vertx = vertx;
    this.sse = sse;
    this.idleMillis = idleMillis;
  }

  /** Ends the stream with the timeout error if no chunk came within {@code millis}. */
  void waitForQuery(long millis) {
    waitTimer = vertx.setTimer(millis, fired -> {
      if (!sentAny) {
        finish(TIMEOUT);
      }
    });
  }

  /** The store's state of the stream: what to replay, whether it already ended; then the live chunks held. */
  void started(StreamState state) {
    through = state.through();
    for (byte[] chunk : state.chunks()) {
      send(chunk);
    }
    if (state.ended()) {
      finish(null);
      return;
    }
    List<StreamChunk> waiting = held;
    held = null;
    restartIdle();
    waiting.forEach(this::chunk);
    if (heldEnd >= 0) {
      finish(null);
    }
  }

  void chunk(StreamChunk live) {
    if (held != null) {
      held.add(live);
      return;
    }
    if (live.sequence() <= through || live.completion() || sse.ended()) {
      return;
    }
    through = live.sequence();
    send(live.item());
    restartIdle();
    if (live.error()) {
      finish(null);
    }
  }

  /** The stream ended at {@code sequence}: after every chunk before it. */
  void ended(long sequence) {
    if (held != null) {
      heldEnd = sequence;
      return;
    }
    finish(null);
  }

  /** Ends the response without {@code [DONE]}: this replica stops serving, and the reader reads again elsewhere. */
  void close() {
    sse.end();
  }

  /** The reader is gone: its timers stop. */
  void gone() {
    vertx.cancelTimer(waitTimer);
    vertx.cancelTimer(idleTimer);
  }

  private void send(byte[] chunk) {
    sentAny = true;
    sse.data(chunk);
  }

  private void restartIdle() {
    vertx.cancelTimer(idleTimer);
    idleTimer = vertx.setTimer(idleMillis, fired -> finish(IDLE));
  }

  private void finish(String error) {
    if (sse.ended()) {
      return;
    }
    if (error != null) {
      sse.dataText(error);
    }
    sse.dataText("[DONE]");
    sse.end();
  }
}
