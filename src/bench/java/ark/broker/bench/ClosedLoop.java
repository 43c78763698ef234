package ark.broker.bench;

import io.vertx.core.Future;
import io.vertx.core.Promise;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * {@code clients} loops, each starting its next operation when its previous one is answered, through a warm-up and
 * then a measured window: the throughput a number of callers that each wait for their answer get, the latency of
 * each operation, and the CPU the processes under test spent on the window's operations.
 */
final class ClosedLoop {
  /**
   * One operation of client {@code client}; completes with how many items (messages, chunks, spans) it carried. It
   * may time a step of its own (a {@code /complete} after a stream) through {@code step}, in nanoseconds.
   */
  interface Operation {
    Future<Long> run(int client, LongConsumer step);
  }

  /** The measured window: operations and items answered in it, failures, latencies, CPU. */
  record Result(long operations, long items, long errors, String firstError, Percentiles latency, Percentiles steps,
                ProcessCpu.Used cpu) {
    double itemsPerSecond() {
      return items / cpu.seconds();
    }

    String errorsText() {
      return errors == 0 ? "no errors" : errors + " errors (first: " + firstError + ")";
    }
  }

  private static final int WARMING = 0;
  private static final int MEASURING = 1;
  private static final int STOPPED = 2;

  private volatile int phase = WARMING;
  private final AtomicLong operations = new AtomicLong();
  private final AtomicLong items = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicReference<String> firstError = new AtomicReference<>();
  private final Percentiles latency = new Percentiles();
  private final Percentiles steps = new Percentiles();
  private final Operation operation;

  private ClosedLoop(Operation operation) {
    this.operation = operation;
  }

  static Result run(int clients, Duration warmUp, Duration window, List<Long> brokerPids, Operation operation)
      throws Exception {
    ClosedLoop loop = new ClosedLoop(operation);
    List<Future<Void>> loops = new ArrayList<>();
    for (int client = 0; client < clients; client++) {
      Promise<Void> stopped = Promise.promise();
      loop.next(client, stopped);
      loops.add(stopped.future());
    }
    TimeUnit.MILLISECONDS.sleep(warmUp.toMillis());
    ProcessCpu cpu = new ProcessCpu(brokerPids);
    loop.phase = MEASURING;
    TimeUnit.MILLISECONDS.sleep(window.toMillis());
    loop.phase = STOPPED;
    ProcessCpu.Used used = cpu.used();
    Future.all(loops).await(120, TimeUnit.SECONDS);
    return new Result(loop.operations.get(), loop.items.get(), loop.errors.get(), loop.firstError.get(), loop.latency,
        loop.steps, used);
  }

  private void next(int client, Promise<Void> stopped) {
    if (phase == STOPPED) {
      stopped.complete();
      return;
    }
    long started = System.nanoTime();
    Future<Long> done;
    try {
      done = operation.run(client, nanos -> {
        if (phase == MEASURING) {
          steps.add(nanos);
        }
      });
    } catch (RuntimeException failed) {
      done = Future.failedFuture(failed);
    }
    done.onComplete(result -> {
      if (phase == MEASURING) {
        if (result.succeeded()) {
          operations.incrementAndGet();
          items.addAndGet(result.result());
          latency.add(System.nanoTime() - started);
        } else {
          errors.incrementAndGet();
          firstError.compareAndSet(null, String.valueOf(result.cause().getMessage()));
        }
      }
      next(client, stopped);
    });
  }
}
