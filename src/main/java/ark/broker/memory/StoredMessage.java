package ark.broker.memory;

import ark.broker.log.RetainedItems;
import ark.broker.wire.ItemWriter;

/** A message as memory keeps it: its conversation and Query, and the item every read writes out, rendered once. */
final class StoredMessage extends RetainedItems.Item {
  /**
   * What a message holds besides its item and ids: itself, and its conversation's and Query's entries in the indexes
   * when it is their only message (measured: 5.6 heap bytes per byte of its item for 10-character messages each in
   * a conversation of its own, when only the item was counted).
   */
  private static final int HELD_AROUND = 640;

  final String conversationId;
  final String queryId;
  /** {@code {"timestamp","conversation_id","query_id","message","sequence"}}, as Ark's broker renders it. */
  final byte[] item;

  private StoredMessage(long sequence, MemoryRecord.Appended appended, byte[] item) {
    super(sequence, appended.at(), appended.expiresAt(), item.length + HELD_AROUND
        + 2 * (appended.conversationId().length() + appended.queryId().length()));
    this.conversationId = appended.conversationId();
    this.queryId = appended.queryId();
    this.item = item;
  }

  static StoredMessage of(long sequence, MemoryRecord.Appended appended) {
    byte[] item = ItemWriter.object(appended.message().length + 160)
        .timestamp("timestamp", appended.at())
        .text("conversation_id", appended.conversationId())
        .text("query_id", appended.queryId())
        .json("message", appended.message())
        .number("sequence", sequence)
        .end();
    return new StoredMessage(sequence, appended, item);
  }
}
