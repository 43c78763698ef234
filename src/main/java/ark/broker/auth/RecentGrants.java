package ark.broker.auth;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The grants of tokens seen a moment ago, so a client sending the same token with every request is authenticated
 * on the event loop, without a worker thread's round trip. An entry lives as long as the tokens file goes
 * unchecked ({@code auth.tokensCheckMillis}): a token removed from the file, or a JWT that just expired, is refused
 * that much later at most, as a file change is. Keyed by the token's hash, so no token is kept in memory.
 */
final class RecentGrants {
  /** Enough for every client of a busy broker; when full it starts over rather than grow. */
  private static final int CAPACITY = 10_000;

  private record Entry(Grant grant, long expiresNanos) {
  }

  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final long lifetimeNanos;

  RecentGrants(long lifetimeNanos) {
    this.lifetimeNanos = lifetimeNanos;
  }

  /** The grant the token got a moment ago, or null. */
  Grant find(String token) {
    if (lifetimeNanos <= 0 || token == null) {
      return null;
    }
    Entry entry = entries.get(key(token));
    if (entry == null || System.nanoTime() - entry.expiresNanos() > 0) {
      return null;
    }
    return entry.grant();
  }

  void remember(String token, Grant grant) {
    if (lifetimeNanos <= 0) {
      return;
    }
    if (entries.size() >= CAPACITY) {
      entries.clear();
    }
    entries.put(key(token), new Entry(grant, System.nanoTime() + lifetimeNanos));
  }

  private static String key(String token) {
    return TokenHash.hex(token);
  }
}
