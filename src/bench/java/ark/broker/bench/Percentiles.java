package ark.broker.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;

/** Latency samples in nanoseconds, summarised the way the README reports them. */
final class Percentiles {
  private long[] samples = new long[1 << 16];
  private int size;

  synchronized void add(long nanos) {
    if (size == samples.length) {
      samples = Arrays.copyOf(samples, size * 2);
    }
    samples[size++] = nanos;
  }

  /** Writes the samples for {@link #readFrom}, so another process's latencies can be merged with these. */
  synchronized void writeTo(DataOutputStream out) throws IOException {
    out.writeInt(size);
    for (int i = 0; i < size; i++) {
      out.writeLong(samples[i]);
    }
  }

  /** Adds the samples {@link #writeTo} wrote. */
  void readFrom(DataInputStream in) throws IOException {
    for (int count = in.readInt(); count > 0; count--) {
      add(in.readLong());
    }
  }

  synchronized int count() {
    return size;
  }

  synchronized double millis(double percentile) {
    if (size == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(samples, size);
    Arrays.sort(sorted);
    int index = (int) Math.ceil(percentile / 100.0 * size) - 1;
    return sorted[Math.max(0, Math.min(size - 1, index))] / 1e6;
  }

  String summary() {
    return String.format("p50 %.2f ms, p99 %.2f ms, max %.2f ms", millis(50), millis(99), millis(100));
  }
}
