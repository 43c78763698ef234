package ark.broker.memory;

import ark.broker.log.RetainedItems;
import ark.broker.wire.ItemWriter;

/** A message as memory keeps it: its conversation and Query, and the item every read writes out, rendered once. */
final class StoredMessage extends RetainedItems.Item {
  final String conversationId;
  final String queryId;
  /** {@code {"timestamp","conversation_id","query_id","message","sequence"}}, as Ark's broker renders it. */
  final byte[] item;

  private StoredMessage(long sequence, MemoryRecord.Appended appended, byte[] item) {
    super(sequence, appended.at(), appended.expiresAt(), item.length);
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
