package ark.broker.log;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Decodes replayed records on every core while the reading thread reads on and applies decoded
 * batches in position order: start-up after a crash is bound by parsing, which spreads well.
 */
final class ReplayDecoder implements AutoCloseable {
  private static final int BATCH = 2048;
  private static final int MAX_IN_FLIGHT = 16;

  private final EventLog.RecordSink<Object> sink;
  private final ExecutorService pool;
  private final ArrayDeque<Future<Decoded>> inFlight = new ArrayDeque<>();
  private long[] positions = new long[BATCH];
  private String[] keys = new String[BATCH];
  private List<byte[]> payloads = new ArrayList<>(BATCH);

  private record Decoded(long[] positions, Object[] records) {
  }

  ReplayDecoder(EventLog.RecordSink<Object> sink) {
    this.sink = sink;
    this.pool = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(), task -> {
      Thread thread = new Thread(task, "ark-broker-replay");
      thread.setDaemon(true);
      return thread;
    });
  }

  void add(long position, String key, byte[] payload) {
    positions[payloads.size()] = position;
    keys[payloads.size()] = key;
    payloads.add(payload);
    if (payloads.size() == BATCH) {
      submit();
    }
  }

  /** Applies everything added so far. */
  void finish() {
    if (!payloads.isEmpty()) {
      submit();
    }
    while (!inFlight.isEmpty()) {
      applyOldest();
    }
  }

  private void submit() {
    long[] batchPositions = positions;
    String[] batchKeys = keys;
    List<byte[]> batchPayloads = payloads;
    int size = batchPayloads.size();
    inFlight.add(pool.submit(() -> {
      Object[] records = new Object[size];
      for (int i = 0; i < size; i++) {
        records[i] = sink.decode(batchPositions[i], batchKeys[i], batchPayloads.get(i));
      }
      return new Decoded(batchPositions, records);
    }));
    positions = new long[BATCH];
    keys = new String[BATCH];
    payloads = new ArrayList<>(BATCH);
    while (inFlight.size() >= MAX_IN_FLIGHT || (!inFlight.isEmpty() && inFlight.peek().isDone())) {
      applyOldest();
    }
  }

  private void applyOldest() {
    Decoded decoded;
    try {
      decoded = inFlight.poll().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("replay interrupted", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getCause());
    }
    for (int i = 0; i < decoded.records.length; i++) {
      sink.apply(decoded.positions[i], decoded.records[i]);
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
