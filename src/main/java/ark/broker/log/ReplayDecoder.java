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
 * batches in position order: start-up after a crash is bound by parsing, which spreads well. What is read ahead is
 * bounded by bytes as well as by records, so a log of large records replays in the heap its stores need, not in
 * that plus the whole log read ahead and decoded.
 */
final class ReplayDecoder implements AutoCloseable {
  private static final int BATCH = 2048;
  private static final int MAX_IN_FLIGHT = 16;
  private static final long BATCH_BYTES = 1 << 20;
  /** Payloads read but not yet applied, at most (and one batch more, whose last record may be large). */
  private static final long MAX_IN_FLIGHT_BYTES = 8 << 20;

  private final EventLog.RecordSink<Object> sink;
  private final ExecutorService pool;
  private final ArrayDeque<Future<Decoded>> inFlight = new ArrayDeque<>();
  private long[] positions = new long[BATCH];
  private String[] keys = new String[BATCH];
  private List<byte[]> payloads = new ArrayList<>(BATCH);
  private long batchBytes;
  private long inFlightBytes;

  private record Decoded(long[] positions, Object[] records, long bytes) {
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
    batchBytes += payload.length;
    if (payloads.size() == BATCH || batchBytes >= BATCH_BYTES) {
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
    long bytes = batchBytes;
    inFlightBytes += bytes;
    inFlight.add(pool.submit(() -> {
      Object[] records = new Object[size];
      for (int i = 0; i < size; i++) {
        records[i] = sink.decode(batchPositions[i], batchKeys[i], batchPayloads.get(i));
      }
      return new Decoded(batchPositions, records, bytes);
    }));
    positions = new long[BATCH];
    keys = new String[BATCH];
    payloads = new ArrayList<>(BATCH);
    batchBytes = 0;
    while (inFlight.size() >= MAX_IN_FLIGHT || inFlightBytes >= MAX_IN_FLIGHT_BYTES
        || (!inFlight.isEmpty() && inFlight.peek().isDone())) {
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
    inFlightBytes -= decoded.bytes;
    for (int i = 0; i < decoded.records.length; i++) {
      sink.apply(decoded.positions[i], decoded.records[i]);
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
