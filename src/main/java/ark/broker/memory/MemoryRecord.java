package ark.broker.memory;

import ark.broker.log.FlatRecord;
import ark.broker.log.RecordCodec;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One record of the memory log: a message appended, or a deletion of earlier ones. A message's sequence is its
 * record's position. Each record says when it was written ({@code at}, epoch milliseconds, the writer's clock), so
 * every replica shows the same timestamp and ages it alike.
 */
sealed interface MemoryRecord {
  long at();

  /** The key of its record in the log: what orders it (a conversation), or empty for the whole memory. */
  String key();

  /** @param expiresAt epoch milliseconds after which it is no longer visible, or {@link Long#MAX_VALUE} */
  record Appended(String conversationId, String queryId, long at, long expiresAt, byte[] message) implements MemoryRecord {
    @Override
    public String key() {
      return conversationId;
    }
  }

  record ConversationDeleted(String conversationId, long at) implements MemoryRecord {
    @Override
    public String key() {
      return conversationId;
    }
  }

  /** @param conversationId the one conversation, or null for every conversation */
  record QueryDeleted(String conversationId, String queryId, long at) implements MemoryRecord {
    @Override
    public String key() {
      return conversationId == null ? "" : conversationId;
    }
  }

  record Purged(long at) implements MemoryRecord {
    @Override
    public String key() {
      return "";
    }
  }

  /** Records as flat JSON, the message kept as its bytes. */
  RecordCodec<MemoryRecord> CODEC = new RecordCodec<>() {
    @Override
    public MemoryRecord decode(byte[] payload) throws IOException {
      FlatRecord record = FlatRecord.decode(payload, "message");
      long at = record.number("at", 0);
      String type = record.text("type");
      return switch (type == null ? "" : type) {
        case "message" -> new Appended(record.text("conversation"), record.text("query"), at,
            record.number("expires", Long.MAX_VALUE), record.nested());
        case "conversation-deleted" -> new ConversationDeleted(record.text("conversation"), at);
        case "query-deleted" -> new QueryDeleted(record.text("conversation"), record.text("query"), at);
        case "purged" -> new Purged(at);
        default -> throw new IOException("not a memory record: type " + type);
      };
    }

    @Override
    public byte[] encode(MemoryRecord record) {
      Map<String, Object> fields = new LinkedHashMap<>();
      byte[] message = null;
      if (record instanceof Appended appended) {
        fields.put("type", "message");
        fields.put("conversation", appended.conversationId());
        fields.put("query", appended.queryId());
        fields.put("expires", appended.expiresAt() == Long.MAX_VALUE ? null : appended.expiresAt());
        message = appended.message();
      } else if (record instanceof ConversationDeleted deleted) {
        fields.put("type", "conversation-deleted");
        fields.put("conversation", deleted.conversationId());
      } else if (record instanceof QueryDeleted deleted) {
        fields.put("type", "query-deleted");
        fields.put("conversation", deleted.conversationId());
        fields.put("query", deleted.queryId());
      } else {
        fields.put("type", "purged");
      }
      fields.put("at", record.at());
      return FlatRecord.encode(fields, "message", message);
    }
  };
}
