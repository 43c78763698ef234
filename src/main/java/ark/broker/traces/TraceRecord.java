package ark.broker.traces;

import ark.broker.bus.TraceStore.NewSpan;
import ark.broker.log.FlatRecord;
import ark.broker.log.RecordCodec;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One record of the traces log: the spans of one export request, or the purge of every span. Each record says when
 * it was written ({@code at}, epoch milliseconds, the writer's clock), so every replica ages it alike.
 */
sealed interface TraceRecord {
  long at();

  /** @param spans in the order the request held them; a span's place in the list is part of its sequence */
  record Spans(long at, List<NewSpan> spans) implements TraceRecord {
    public Spans {
      spans = List.copyOf(spans);
    }
  }

  record Purged(long at) implements TraceRecord {
  }

  /**
   * Records as flat JSON; the spans as {@code [[traceId, sessionId or null, span], ...]}, each span kept as its
   * bytes: read back at replay without building it.
   */
  RecordCodec<TraceRecord> CODEC = new RecordCodec<>() {
    private final JsonFactory json = new JsonFactory();

    @Override
    public TraceRecord decode(byte[] payload) throws IOException {
      FlatRecord record = FlatRecord.decode(payload, "spans");
      long at = record.number("at", 0);
      String type = record.text("type");
      return switch (type == null ? "" : type) {
        case "spans" -> new Spans(at, spans(record.nested()));
        case "purged" -> new Purged(at);
        default -> throw new IOException("not a traces record: type " + type);
      };
    }

    private List<NewSpan> spans(byte[] nested) throws IOException {
      if (nested == null) {
        throw new IOException("a spans record without spans");
      }
      List<NewSpan> spans = new ArrayList<>();
      try (JsonParser parser = json.createParser(nested)) {
        if (parser.nextToken() != JsonToken.START_ARRAY) {
          throw new IOException("spans must be an array");
        }
        while (parser.nextToken() == JsonToken.START_ARRAY) {
          String traceId = parser.nextTextValue();
          String sessionId = parser.nextTextValue();
          if (traceId == null || parser.nextToken() != JsonToken.START_OBJECT) {
            throw new IOException("a span must be [traceId, sessionId or null, {span}]");
          }
          int from = (int) parser.currentTokenLocation().getByteOffset();
          parser.skipChildren();
          int to = (int) parser.currentLocation().getByteOffset();
          spans.add(new NewSpan(traceId, sessionId, Arrays.copyOfRange(nested, from, to)));
          if (parser.nextToken() != JsonToken.END_ARRAY) {
            throw new IOException("a span must be [traceId, sessionId or null, {span}]");
          }
        }
      }
      return spans;
    }

    @Override
    public byte[] encode(TraceRecord record) {
      Map<String, Object> fields = new LinkedHashMap<>();
      byte[] nested = null;
      if (record instanceof Spans spans) {
        fields.put("type", "spans");
        nested = encodeSpans(spans.spans());
      } else {
        fields.put("type", "purged");
      }
      fields.put("at", record.at());
      return FlatRecord.encode(fields, "spans", nested);
    }

    private byte[] encodeSpans(List<NewSpan> spans) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(spans.stream().mapToInt(span -> span.span().length + 64).sum());
      out.write('[');
      for (int i = 0; i < spans.size(); i++) {
        NewSpan span = spans.get(i);
        out.writeBytes((i == 0 ? "[" : ",[").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(quoted(span.traceId()));
        out.write(',');
        out.writeBytes(span.sessionId() == null ? "null".getBytes(StandardCharsets.US_ASCII) : quoted(span.sessionId()));
        out.write(',');
        out.writeBytes(span.span());
        out.write(']');
      }
      out.write(']');
      return out.toByteArray();
    }

    private byte[] quoted(String text) {
      byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(text);
      byte[] quoted = new byte[escaped.length + 2];
      quoted[0] = '"';
      System.arraycopy(escaped, 0, quoted, 1, escaped.length);
      quoted[quoted.length - 1] = '"';
      return quoted;
    }
  };
}
