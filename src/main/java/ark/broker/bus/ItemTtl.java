package ark.broker.bus;

/**
 * How long an item of Ark's stores (a message, an event) stays visible: its own {@code ttl_seconds}, cut to the
 * store's maximum age, which also holds when none was given. Computed without overflowing, so no ttl makes an item
 * vanish at once.
 */
public final class ItemTtl {
  private ItemTtl() {
  }

  /** @param ttlSeconds positive, or null for the maximum age */
  public static long visibleMillis(Long ttlSeconds, long maxAgeMillis) {
    return ttlSeconds == null || ttlSeconds >= maxAgeMillis / 1000 ? maxAgeMillis : ttlSeconds * 1000;
  }
}
