package ark.broker.reconcile;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class KeyedWorkQueueTest {
  private final Vertx vertx = Vertx.vertx();
  private final List<String> started = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Promise<Void>> running = new HashMap<>();

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** Runs on the queue's event loop, as its owner would, and waits for it. */
  private <T> T onLoop(java.util.concurrent.Callable<T> action) throws Exception {
    CompletableFuture<T> result = new CompletableFuture<>();
    vertx.runOnContext(ignored -> {
      try {
        result.complete(action.call());
      } catch (Exception e) {
        result.completeExceptionally(e);
      }
    });
    return result.get(10, TimeUnit.SECONDS);
  }

  private Future<Void> held(String key) {
    started.add(key);
    Promise<Void> promise = Promise.promise();
    running.put(key, promise);
    return promise.future();
  }

  private void finish(String key, Throwable failure) throws Exception {
    onLoop(() -> failure == null ? running.remove(key).tryComplete() : running.remove(key).tryFail(failure));
  }

  private void awaitStarted(int count) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (started.size() < count && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(started).hasSizeGreaterThanOrEqualTo(count);
  }

  @Test
  void aKeyOfferedWhileItRunsRunsOnceMoreAfterwards() throws Exception {
    KeyedWorkQueue<String> queue = onLoop(() -> new KeyedWorkQueue<String>(vertx, 2, false, 0,
        (failure, failures) -> -1, this::held));

    onLoop(() -> {
      queue.offer("a");
      queue.offer("a");
      queue.offer("a");
      return null;
    });
    awaitStarted(1);
    finish("a", null);
    awaitStarted(2);
    finish("a", null);

    assertThat(started).containsExactly("a", "a");
  }

  @Test
  void differentKeysRunConcurrentlyUpToTheLimit() throws Exception {
    KeyedWorkQueue<String> queue = onLoop(() -> new KeyedWorkQueue<String>(vertx, 2, false, 0,
        (failure, failures) -> -1, this::held));

    onLoop(() -> {
      queue.offer("a");
      queue.offer("b");
      queue.offer("c");
      return null;
    });
    awaitStarted(2);
    assertThat(started).containsExactly("a", "b");
    finish("b", null);
    awaitStarted(3);

    assertThat(started).containsExactly("a", "b", "c");
  }

  @Test
  void aFailedKeyIsRetriedAfterItsDelayWhileOthersGoOn() throws Exception {
    KeyedWorkQueue<String> queue = onLoop(() -> new KeyedWorkQueue<String>(vertx, 1, false, 0,
        (failure, failures) -> 50, this::held));

    onLoop(() -> {
      queue.offer("a");
      queue.offer("b");
      return null;
    });
    awaitStarted(1);
    finish("a", new IllegalStateException("down"));
    awaitStarted(2);
    assertThat(started).as("b goes first while a waits").containsExactly("a", "b");
    finish("b", null);
    awaitStarted(3);

    assertThat(started).containsExactly("a", "b", "a");
  }

  @Test
  void anOrderedQueueHoldsEverythingBehindAFailedHead() throws Exception {
    KeyedWorkQueue<String> queue = onLoop(() -> new KeyedWorkQueue<String>(vertx, 1, true, 0,
        (failure, failures) -> failures < 2 ? 50 : -1, this::held));

    onLoop(() -> {
      queue.offer("a");
      queue.offer("b");
      return null;
    });
    awaitStarted(1);
    finish("a", new IllegalStateException("rate limited"));
    awaitStarted(2);
    assertThat(started).as("a again before b").containsExactly("a", "a");
    finish("a", new IllegalStateException("refused for good"));
    awaitStarted(3);

    assertThat(started).as("dropped after the policy gives up").containsExactly("a", "a", "b");
  }

  @Test
  void aStoppedQueueStartsNothing() throws Exception {
    KeyedWorkQueue<String> queue = onLoop(() -> new KeyedWorkQueue<String>(vertx, 1, false, 0,
        (failure, failures) -> -1, this::held));

    onLoop(() -> {
      queue.offer("a");
      queue.offer("b");
      queue.stop();
      queue.offer("c");
      return null;
    });
    finish("a", null);

    assertThat(onLoop(() -> List.copyOf(started))).as("b and c never start").containsExactly("a");
  }
}
