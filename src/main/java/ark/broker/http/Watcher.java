package ark.broker.http;

import ark.broker.bus.Messages.Changes;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.question.QuestionFilter;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * One open watch stream. While it catches up from history it holds live changes back, then sends
 * them after the history; the resourceVersion of the last change seen drops anything seen twice.
 */
final class Watcher {
  /** How many changes of history a watcher asks the store for at a time. */
  static final int HISTORY_PAGE = 1000;
  private static final int SLICE = 200;

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

  /**
   * Live changes, in order, as one write: {@code all} is every one of them encoded, written as it is
   * when this watcher sees them all (the usual case); else the frames it may see, from {@code frame}.
   */
  void offer(List<QuestionChange> changes, Buffer all, Function<QuestionChange, Buffer> frame) {
    if (heldBack != null) {
      heldBack.addAll(changes);
      return;
    }
    Buffer mine = null;
    for (int i = 0; i < changes.size(); i++) {
      QuestionChange change = changes.get(i);
      boolean sees = change.position() > lastSeen && filter.matches(change.question());
      lastSeen = Math.max(lastSeen, change.position());
      if (sees && mine != null) {
        mine.appendBuffer(frame.apply(change));
      } else if (!sees && mine == null) {
        mine = Buffer.buffer();
        for (QuestionChange seen : changes.subList(0, i)) {
          mine.appendBuffer(frame.apply(seen));
        }
      }
    }
    Buffer write = mine == null ? all : mine;
    if (write.length() > 0) {
      response.write(write);
    }
  }

  /**
   * Sends the history after the requested position, then whatever was held back meanwhile. The history
   * is read a page at a time and goes out only as fast as the client reads it (a full write queue waits
   * for the drain), so a client that does not read holds one page and a write queue's worth, not the
   * whole history; like any watcher that falls behind, it is cut off at the next change or heartbeat and
   * resumes from its last id. Fails as the store refused a page (too old: the client lists again).
   */
  Future<Void> catchUp(LongFunction<Future<Changes>> pageAfter, Function<QuestionChange, Buffer> frames) {
    Promise<Void> caughtUp = Promise.promise();
    nextPage(pageAfter, frames, caughtUp);
    return caughtUp.future();
  }

  private void nextPage(LongFunction<Future<Changes>> pageAfter, Function<QuestionChange, Buffer> frames,
                        Promise<Void> caughtUp) {
    pageAfter.apply(lastSeen)
        .onFailure(caughtUp::tryFail)
        .onSuccess(page -> sendPage(page, 0, pageAfter, frames, caughtUp));
  }

  /** A slice at a time, so a long history shares the event loop with everyone else's requests. */
  private void sendPage(Changes page, int from, LongFunction<Future<Changes>> pageAfter,
                        Function<QuestionChange, Buffer> frames, Promise<Void> caughtUp) {
    if (response.ended() || response.closed()) {
      caughtUp.tryComplete(); // cut off, or gone, meanwhile
      return;
    }
    List<QuestionChange> changes = page.changes();
    int next = from;
    int end = Math.min(changes.size(), from + SLICE);
    while (next < end && !response.writeQueueFull()) {
      send(changes.get(next++), frames);
    }
    int rest = next;
    if (rest < changes.size() && response.writeQueueFull()) {
      response.drainHandler(drained -> sendPage(page, rest, pageAfter, frames, caughtUp));
    } else if (rest < changes.size()) {
      Vertx.currentContext().runOnContext(later -> sendPage(page, rest, pageAfter, frames, caughtUp));
    } else if (page.more()) {
      response.drainHandler(null);
      lastSeen = Math.max(lastSeen, page.through()); // past the changes this watcher may not see
      nextPage(pageAfter, frames, caughtUp);
    } else {
      response.drainHandler(null);
      List<QuestionChange> held = heldBack;
      heldBack = null;
      for (QuestionChange change : held) {
        send(change, frames);
      }
      caughtUp.complete();
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
    if (!response.ended() && !response.closed()) {
      response.end(last);
    }
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
