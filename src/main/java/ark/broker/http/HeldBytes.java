package ark.broker.http;

import ark.broker.edge.RateLimitedWarning;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.Shareable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What all clients of Ark's routes together make this broker hold for them: the bytes written to watches and stream
 * readers that they have not read yet (direct memory, which the heap's limit does not cover) and the request bodies
 * being read. One budget for the whole process, across every event loop: a body that would exceed it is refused
 * before it is read, and when unread bytes exceed it the reader holding the most is cut off (it resumes from its
 * cursor), until what is held fits again.
 */
final class HeldBytes implements Shareable {
  private static final Logger LOG = LoggerFactory.getLogger(HeldBytes.class);

  /** A reader that holds unread bytes, and can be cut off to free them. */
  interface Reader {
    /** The bytes written to it and not yet taken by its client. */
    long unread();

    /** Whether it is served by the calling thread's event loop, where cutting it off frees what it holds at once. */
    boolean servedHere();

    /**
     * Ends it, saying why, from any thread: what it would write from now on is dropped, and its connection closes
     * on its own event loop, releasing what it holds.
     */
    void cutOff(String why);
  }

  private final long max;
  private final AtomicLong held = new AtomicLong();
  private final Set<Reader> readers = ConcurrentHashMap.newKeySet();
  /** Readers cut off whose connections have not closed yet. */
  private final Set<Reader> leaving = ConcurrentHashMap.newKeySet();
  private final RateLimitedWarning full = new RateLimitedWarning(LOG);

  HeldBytes(long max) {
    this.max = max;
  }

  /** The one budget of this process, shared by every verticle instance serving Ark's routes. */
  static HeldBytes shared(Vertx vertx, long max) {
    return vertx.sharedData().<String, HeldBytes>getLocalMap(HeldBytes.class.getName())
        .computeIfAbsent("budget", name -> new HeldBytes(max));
  }

  long held() {
    return held.get();
  }

  /** Holds {@code bytes} of a body about to be read, if they fit; else nothing is held. */
  boolean tryHold(long bytes) {
    long now;
    do {
      now = held.get();
      if (now + bytes > max) {
        long holding = now;
        full.warn(() -> "clients of Ark's routes hold " + holding + " bytes of " + max
            + " allowed (arkApi.maxHeldBytes): a body was refused");
        return false;
      }
    } while (!held.compareAndSet(now, now + bytes));
    return true;
  }

  void release(long bytes) {
    held.addAndGet(-bytes);
  }

  void register(Reader reader) {
    readers.add(reader);
  }

  /** The reader leaves the budget's care; what it still holds is released as its writes complete or fail. */
  void unregister(Reader reader) {
    readers.remove(reader);
    leaving.remove(reader);
  }

  /**
   * Holds {@code bytes} written to a reader; beyond the budget, cuts off those holding the most until it fits, first
   * on this event loop (their bytes go at once; another loop may be busy handing out items for a while). What
   * readers cut off still hold counts until their connections close, but no more are cut for it: so the budget is
   * exceeded at most by what those held when they were cut. One that keeps up, holding nothing, is never cut.
   */
  void holdUnread(long bytes) {
    long now = held.addAndGet(bytes);
    if (now <= max) {
      return;
    }
    long leavingBytes = leaving.stream().mapToLong(Reader::unread).sum();
    while (now - leavingBytes > max) {
      Reader largest = readers.stream().filter(Reader::servedHere).max(Comparator.comparingLong(Reader::unread))
          .filter(reader -> reader.unread() > 0)
          .orElseGet(() -> readers.stream().max(Comparator.comparingLong(Reader::unread)).orElse(null));
      if (largest == null || largest.unread() == 0 || !readers.remove(largest)) {
        return;
      }
      long freed = largest.unread();
      leaving.add(largest);
      leavingBytes += freed;
      long holding = now;
      full.warn(() -> "clients of Ark's routes hold " + holding + " bytes of " + max + " allowed"
          + " (arkApi.maxHeldBytes): the reader holding the most (" + freed + " unread bytes) was cut off");
      largest.cutOff("this broker holds as many unread bytes for its readers as it may, and this reader held the most;"
          + " resume from your cursor");
    }
  }
}
