package ark.broker.contract;

import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

import static ark.broker.contract.Checks.cursorOf;
import static org.assertj.core.api.Assertions.assertThat;

/** A watch a client resumes from the cursors its items carry, while writes go on: nothing lost, nothing twice. */
final class ResumableWatch {
  static final int WRITES = 200;
  private static final int WRITERS = 4;

  /** One write, numbered 0..{@value #WRITES}-1. */
  interface Write {
    void write(int number) throws Exception;
  }

  private ResumableWatch() {
  }

  /**
   * While {@value #WRITERS} writers make {@value #WRITES} writes, a watcher of {@code path} (which must match exactly
   * those writes) on {@code watchOn}, from cursor 0, takes a third of them, then reconnects on {@code resumeOn} with
   * the cursor of the last it took: every write arrives exactly once (told apart by {@code idOf}), in cursor order.
   */
  static void assertResumes(ArkHttp watchOn, ArkHttp resumeOn, String path, Write write,
                            Function<JsonObject, String> idOf) throws Exception {
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    try {
      List<Future<?>> writes = new ArrayList<>();
      List<Long> cursors = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      try (EventStreamLines first = watchOn.watch(path + "&cursor=0")) {
        for (int w = 0; w < WRITERS; w++) {
          int writer = w;
          writes.add(writers.submit(() -> {
            for (int i = writer; i < WRITES; i += WRITERS) {
              write.write(i);
            }
            return null;
          }));
        }
        while (seen.size() < WRITES / 3) {
          take(first.nextJson(), idOf, cursors, seen);
        }
      }
      try (EventStreamLines resumed = resumeOn.watch(path + "&cursor=" + cursors.get(cursors.size() - 1))) {
        while (seen.size() < WRITES) {
          take(resumed.nextJson(), idOf, cursors, seen);
        }
        assertThat(resumed.dataWithin(Duration.ofMillis(300))).as("nothing more").isNull();
      }
      for (Future<?> done : writes) {
        done.get();
      }
      assertThat(cursors).isSorted().doesNotHaveDuplicates();
    } finally {
      writers.shutdownNow();
    }
  }

  private static void take(JsonObject item, Function<JsonObject, String> idOf, List<Long> cursors, Set<String> seen) {
    cursors.add(cursorOf(item));
    assertThat(seen.add(idOf.apply(item))).as("seen once: %s", item).isTrue();
  }
}
