package ark.broker.log;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamWriteFeature;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A log record as one flat JSON object: scalar fields (strings, whole numbers, booleans) and at most one JSON value
 * kept as its bytes, never parsed into a tree. The stores of Ark's broker keep what their callers send (a message,
 * a chunk, an event) this way: read back at replay without building it, written out to readers as it is.
 *
 * @param scalars the scalar fields by name, in the record's order
 * @param nested the nested value as compact JSON, or null
 */
public record FlatRecord(Map<String, Object> scalars, byte[] nested) {
  /** The nested value is written after the scalars by hand: the generator must not close the object itself. */
  private static final JsonFactory JSON = JsonFactory.builder()
      .disable(StreamWriteFeature.AUTO_CLOSE_CONTENT).build();

  public String text(String name) {
    return (String) scalars.get(name);
  }

  /** A whole number, or {@code otherwise} when the record has none of that name. */
  public long number(String name, long otherwise) {
    Object value = scalars.get(name);
    return value == null ? otherwise : ((Number) value).longValue();
  }

  public boolean flag(String name) {
    return Boolean.TRUE.equals(scalars.get(name));
  }

  /**
   * The record's bytes: the scalars (nulls left out), then the nested value under {@code nestedName}.
   *
   * @param nested compact JSON (no line breaks: a log record is one line), or null
   */
  public static byte[] encode(Map<String, Object> scalars, String nestedName, byte[] nested) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + (nested == null ? 0 : nested.length));
    try (JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      json.writeStartObject();
      for (Map.Entry<String, Object> field : scalars.entrySet()) {
        Object value = field.getValue();
        if (value instanceof String text) {
          json.writeStringField(field.getKey(), text);
        } else if (value instanceof Boolean flag) {
          json.writeBooleanField(field.getKey(), flag);
        } else if (value != null) {
          json.writeNumberField(field.getKey(), ((Number) value).longValue());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (nested != null) {
      out.writeBytes((scalars.values().stream().anyMatch(value -> value != null) ? ",\"" : "\"")
          .getBytes(StandardCharsets.UTF_8));
      out.writeBytes(nestedName.getBytes(StandardCharsets.UTF_8));
      out.writeBytes(new byte[] {'"', ':'});
      out.writeBytes(nested);
    }
    out.write('}');
    return out.toByteArray();
  }

  /** Reads a record {@link #encode} wrote; the value of {@code nestedName} is sliced out of the bytes, not parsed. */
  public static FlatRecord decode(byte[] payload, String nestedName) throws IOException {
    Map<String, Object> scalars = new LinkedHashMap<>();
    byte[] nested = null;
    try (JsonParser parser = JSON.createParser(payload)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("a record must be a JSON object");
      }
      for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (name.equals(nestedName)) {
          int from = (int) parser.currentTokenLocation().getByteOffset();
          parser.skipChildren();
          // A scalar's text may not have been read yet, and where the parser stands with it.
          parser.finishToken();
          int to = (int) parser.currentLocation().getByteOffset();
          nested = Arrays.copyOfRange(payload, from, to);
        } else if (value == JsonToken.VALUE_STRING) {
          scalars.put(name, parser.getText());
        } else if (value == JsonToken.VALUE_NUMBER_INT) {
          scalars.put(name, parser.getLongValue());
        } else if (value == JsonToken.VALUE_TRUE || value == JsonToken.VALUE_FALSE) {
          scalars.put(name, value == JsonToken.VALUE_TRUE);
        } else {
          parser.skipChildren();
        }
      }
    }
    return new FlatRecord(scalars, nested);
  }
}
