package ark.broker.streams;

import ark.broker.log.FlatRecord;
import ark.broker.log.RecordCodec;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One record of the streams log: a chunk, a request starting or ending its posting, a completion, or a purge. A
 * chunk's sequence is its record's position. {@code at} is the writer's clock, epoch milliseconds.
 */
sealed interface StreamRecord {
  long at();

  /** The Query whose stream it belongs to (its key in the log), or empty for a purge. */
  String queryId();

  /**
   * @param producerId the request that posted it, when that request announced itself ({@link Opened}), or null
   * @param error whether it reports the Query's failure, which ends the stream for its readers
   */
  record Chunk(String queryId, String producerId, long at, boolean error, byte[] chunk) implements StreamRecord {
  }

  record Opened(String queryId, String producerId, long at) implements StreamRecord {
  }

  record Closed(String queryId, String producerId, long at) implements StreamRecord {
  }

  record Completed(String queryId, long at) implements StreamRecord {
  }

  record Purged(long at) implements StreamRecord {
    @Override
    public String queryId() {
      return "";
    }
  }

  RecordCodec<StreamRecord> CODEC = new RecordCodec<>() {
    @Override
    public StreamRecord decode(byte[] payload) throws IOException {
      FlatRecord record = FlatRecord.decode(payload, "chunk");
      long at = record.number("at", 0);
      String type = record.text("type");
      String query = record.text("query");
      return switch (type == null ? "" : type) {
        case "chunk" -> new Chunk(query, record.text("producer"), at, record.flag("error"), record.nested());
        case "opened" -> new Opened(query, record.text("producer"), at);
        case "closed" -> new Closed(query, record.text("producer"), at);
        case "completed" -> new Completed(query, at);
        case "purged" -> new Purged(at);
        default -> throw new IOException("not a streams record: type " + type);
      };
    }

    @Override
    public byte[] encode(StreamRecord record) {
      Map<String, Object> fields = new LinkedHashMap<>();
      byte[] chunk = null;
      if (record instanceof Chunk written) {
        fields.put("type", "chunk");
        fields.put("producer", written.producerId());
        fields.put("error", written.error() ? Boolean.TRUE : null);
        chunk = written.chunk();
      } else if (record instanceof Opened opened) {
        fields.put("type", "opened");
        fields.put("producer", opened.producerId());
      } else if (record instanceof Closed closed) {
        fields.put("type", "closed");
        fields.put("producer", closed.producerId());
      } else if (record instanceof Completed) {
        fields.put("type", "completed");
      } else {
        fields.put("type", "purged");
      }
      fields.put("query", record.queryId().isEmpty() ? null : record.queryId());
      fields.put("at", record.at());
      return FlatRecord.encode(fields, "chunk", chunk);
    }
  };
}
