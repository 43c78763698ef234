package ark.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.CountDownLatch;

/**
 * A disk that fills up or fails on demand, for {@link FileEventLog}'s channel seam: writes take at most
 * {@link #space} more bytes (then fail as a full disk does, possibly half way through a batch), and syncs
 * or truncations fail while told to, and syncs wait while held.
 */
final class FaultyDisk {
  static final String FULL = "No space left on device";
  static final String IO_ERROR = "Input/output error";

  /** Bytes the disk still takes; writes beyond fail. */
  volatile long space = Long.MAX_VALUE;
  volatile boolean failSync;
  volatile boolean failTruncate;
  /** While set, syncs wait for it. */
  private volatile CountDownLatch heldSyncs;

  void fill(long bytesLeft) {
    space = bytesLeft;
  }

  /** Syncs wait until {@link #releaseSyncs}, as on a slow disk. */
  void holdSyncs() {
    heldSyncs = new CountDownLatch(1);
  }

  void releaseSyncs() {
    heldSyncs.countDown();
    heldSyncs = null;
  }

  void heal() {
    failSync = false;
    failTruncate = false;
    space = Long.MAX_VALUE;
  }

  FileChannel wrap(FileChannel channel) {
    return new Channel(channel);
  }

  private final class Channel extends FileChannel {
    private final FileChannel delegate;

    Channel(FileChannel delegate) {
      this.delegate = delegate;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      long left = space;
      if (left <= 0) {
        throw new IOException(FULL);
      }
      if (src.remaining() <= left) {
        int written = delegate.write(src);
        space = left - written;
        return written;
      }
      ByteBuffer part = src.slice().limit((int) left);
      int written = delegate.write(part);
      src.position(src.position() + written);
      space = left - written;
      return written;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      CountDownLatch held = heldSyncs;
      if (held != null) {
        try {
          held.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while the sync was held", e);
        }
      }
      if (failSync) {
        throw new IOException(IO_ERROR);
      }
      delegate.force(metaData);
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      if (failTruncate) {
        throw new IOException(IO_ERROR);
      }
      delegate.truncate(size);
      return this;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return delegate.read(dsts, offset, length);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) {
      throw new UnsupportedOperationException("the log writes one buffer at a time");
    }

    @Override
    public long position() throws IOException {
      return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      delegate.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return delegate.size();
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
      return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) {
      throw new UnsupportedOperationException("the log writes one buffer at a time");
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return delegate.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) {
      throw new UnsupportedOperationException("the log writes one buffer at a time");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      delegate.close();
    }
  }
}
