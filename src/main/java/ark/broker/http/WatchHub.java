package ark.broker.http;

import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.QuestionChange;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.List;
import java.util.Set;

/**
 * Fans the store's changes out to this verticle's open watch streams: one event-bus consumer however
 * many watchers, each change encoded once, idle streams kept alive by heartbeats.
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
  private Vertx vertx;
  private MessageConsumer<QuestionChange> consumer;
  private long heartbeatTimer;

  /** Completes once changes flow, so a watcher added afterwards misses none published after its history. */
  Future<Void> start(Vertx vertx, long heartbeatSeconds) {
    this.vertx = vertx;
    consumer = vertx.eventBus().localConsumer(Addresses.QUESTIONS_CHANGED, message -> broadcast(message.body()));
    heartbeatTimer = vertx.setPeriodic(heartbeatSeconds * 1000, id -> forEach(watcher -> watcher.write(SseFrames.HEARTBEAT)));
    return consumer.completion();
  }

  Future<Void> stop() {
    vertx.cancelTimer(heartbeatTimer);
    return consumer.unregister();
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

  private void broadcast(QuestionChange change) {
    forEach(watcher -> watcher.offer(change, this::frameOf));
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
