package ark.broker.log;

import java.nio.ByteBuffer;
import java.util.Arrays;

/** A byte buffer that grows as records are encoded into it, reused batch after batch. */
final class GrowableBuffer {
  private byte[] bytes = new byte[64 * 1024];
  private int size;

  void put(byte b) {
    ensure(1);
    bytes[size++] = b;
  }

  void put(byte[] data) {
    ensure(data.length);
    System.arraycopy(data, 0, bytes, size, data.length);
    size += data.length;
  }

  int size() {
    return size;
  }

  ByteBuffer asByteBuffer() {
    return ByteBuffer.wrap(bytes, 0, size);
  }

  byte[] toBytes() {
    return Arrays.copyOf(bytes, size);
  }

  void clear() {
    size = 0;
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }
}
