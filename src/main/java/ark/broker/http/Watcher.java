package ark.broker.http;

import ark.broker.bus.Messages.QuestionChange;
import ark.broker.question.QuestionFilter;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * One open watch stream. While it catches up from history it holds live changes back, then sends
 * them after the history; the resourceVersion of the last change seen drops anything seen twice.
 */
final class Watcher {
  private final HttpServerResponse response;
  private final QuestionFilter filter;
  private long lastSeen;
  private List<QuestionChange> heldBack;

  /** @param after changes at or below this position are not sent; null means "from now", no catch-up */
  Watcher(HttpServerResponse response, QuestionFilter filter, Long after) {
    this.response = response;
    this.filter = filter;
    this.lastSeen = after == null ? -1 : after;
    this.heldBack = after == null ? null : new ArrayList<>();
  }

  /** A live change; {@code frame} encodes it once for every watcher of the hub. */
  void offer(QuestionChange change, Function<QuestionChange, Buffer> frame) {
    if (heldBack != null) {
      heldBack.add(change);
    } else {
      send(change, frame);
    }
  }

  /**
   * The history after the requested position: sent first, then whatever was held back meanwhile. The
   * history goes out only as fast as the client reads it (a full write queue waits for the drain), so a
   * client that does not read holds a write queue's worth, not the whole history; like any watcher
   * that falls behind, it is cut off at the next change or heartbeat and resumes from its last id.
   */
  void catchUp(List<QuestionChange> history) {
    catchUpFrom(history, 0);
  }

  private void catchUpFrom(List<QuestionChange> history, int from) {
    int next = from;
    while (next < history.size() && !response.writeQueueFull()) {
      send(history.get(next++), SseFrames::change);
    }
    if (next < history.size()) {
      int rest = next;
      response.drainHandler(drained -> catchUpFrom(history, rest));
      return;
    }
    response.drainHandler(null);
    List<QuestionChange> held = heldBack;
    heldBack = null;
    for (QuestionChange change : held) {
      send(change, SseFrames::change);
    }
  }

  /** True when the client reads too slowly to keep up; it is then cut off and resumes from its last id. */
  boolean isBehind() {
    return response.writeQueueFull();
  }

  void write(Buffer buffer) {
    response.write(buffer);
  }

  void end(Buffer last) {
    response.end(last);
  }

  private void send(QuestionChange change, Function<QuestionChange, Buffer> frame) {
    if (change.position() <= lastSeen) {
      return;
    }
    lastSeen = change.position();
    if (filter.matches(change.question())) {
      response.write(frame.apply(change));
    }
  }
}
