package ark.broker.http;

import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.QuestionChange;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Fans the store's changes out to this verticle's open watch streams: one event-bus consumer however
 * many watchers, each change encoded once, idle streams kept alive by heartbeats. Changes that arrive
 * while a fan-out is still queued go out with it, as one write per watcher: a write (and its system call)
 * per watcher is what a fan-out costs, so when changes come faster than that, they share the writes
 * instead of queueing behind each other.
 */
final class WatchHub {
  private static final Logger LOG = LoggerFactory.getLogger(WatchHub.class);

  private static final int REMEMBERED_FRAMES = 10_000;

  private final Set<Watcher> watchers = new LinkedHashSet<>();
  private final Map<Long, Buffer> recentFrames = new LinkedHashMap<>(1024, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Buffer> eldest) {
      return size() > REMEMBERED_FRAMES;
    }
  };
  private final List<QuestionChange> unsent = new ArrayList<>();
  private Vertx vertx;
  private Context context;
  private MessageConsumer<QuestionChange> consumer;
  private long heartbeatTimer;

  /** Completes once changes flow, so a watcher added afterwards misses none published after its history. */
  Future<Void> start(Vertx vertx, long heartbeatSeconds) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    consumer = vertx.eventBus().localConsumer(Addresses.QUESTIONS_CHANGED, message -> enqueue(message.body()));
    heartbeatTimer = vertx.setPeriodic(heartbeatSeconds * 1000, id -> forEach(watcher -> watcher.write(SseFrames.HEARTBEAT)));
    return consumer.completion();
  }

  Future<Void> stop() {
    vertx.cancelTimer(heartbeatTimer);
    return consumer.unregister();
  }

  /** Ends every open watch stream with {@code last}. */
  void endAll(Buffer last) {
    List<Watcher> open = List.copyOf(watchers);
    watchers.clear();
    open.forEach(watcher -> watcher.end(last));
  }

  void add(Watcher watcher) {
    watchers.add(watcher);
  }

  void remove(Watcher watcher) {
    watchers.remove(watcher);
  }

  int size() {
    return watchers.size();
  }

  /**
   * Queues the fan-out behind the changes already waiting on this event loop, so it takes them along. With no
   * stream open here there is nobody to encode the change for (every HTTP event loop has a hub of its own).
   */
  private void enqueue(QuestionChange change) {
    if (watchers.isEmpty()) {
      return;
    }
    unsent.add(change);
    if (unsent.size() == 1) {
      context.runOnContext(go -> broadcast());
    }
  }

  private void broadcast() {
    List<QuestionChange> changes = List.copyOf(unsent);
    unsent.clear();
    Buffer all = Buffer.buffer();
    for (QuestionChange change : changes) {
      all.appendBuffer(frameOf(change));
    }
    forEach(watcher -> watcher.offer(changes, all, this::frameOf));
  }

  /**
   * The change as an SSE frame, encoded once however many watchers send it: live, and when many
   * watchers replay the same history at once (a dashboard fleet reconnecting).
   */
  Buffer frameOf(QuestionChange change) {
    return recentFrames.computeIfAbsent(change.position(), position -> SseFrames.change(change));
  }

  private void forEach(java.util.function.Consumer<Watcher> action) {
    List<Watcher> behind = null;
    for (Watcher watcher : watchers) {
      action.accept(watcher);
      if (watcher.isBehind()) {
        behind = behind == null ? new ArrayList<>() : behind;
        behind.add(watcher);
      }
    }
    if (behind != null) {
      for (Watcher watcher : behind) {
        watchers.remove(watcher);
        watcher.end(SseFrames.opening("closing: this client reads too slowly; reconnect with Last-Event-ID", 1000));
      }
      LOG.warn("Closed {} watch streams that read too slowly to keep up; they resume from their last event id", behind.size());
    }
  }
}
