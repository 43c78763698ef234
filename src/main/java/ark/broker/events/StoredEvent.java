package ark.broker.events;

import ark.broker.log.RetainedItems;
import ark.broker.wire.ItemWriter;

/** An event as the events store keeps it: its Query and session, and the item every read writes out. */
final class StoredEvent extends RetainedItems.Item {
  final String queryId;
  final String sessionId;
  /** The event as posted ({@code data} first, no {@code ttl_seconds}), its {@code sequence} last. */
  final byte[] item;

  private StoredEvent(long sequence, EventRecord.Posted posted, byte[] item) {
    super(sequence, posted.at(), posted.expiresAt(), item.length);
    this.queryId = posted.queryId();
    this.sessionId = posted.sessionId();
    this.item = item;
  }

  static StoredEvent of(long sequence, EventRecord.Posted posted) {
    return new StoredEvent(sequence, posted, ItemWriter.withNumber(posted.event(), "sequence", sequence));
  }
}
