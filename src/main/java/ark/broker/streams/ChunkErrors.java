package ark.broker.streams;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * Which chunks report a Query's failure, as Ark's executors stream one: {@code {"error":{"message":"...","type":"..."}}}
 * at the top of the chunk. Read without building the chunk, since every chunk is asked.
 */
final class ChunkErrors {
  private static final JsonFactory JSON = new JsonFactory();

  private ChunkErrors() {
  }

  static boolean reportsFailure(byte[] chunk) {
    try (JsonParser parser = JSON.createParser(chunk)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (name.equals("error") && value == JsonToken.START_OBJECT) {
          return hasMessageAndType(parser);
        }
        parser.skipChildren();
      }
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean hasMessageAndType(JsonParser parser) throws IOException {
    boolean message = false;
    boolean type = false;
    for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
      String name = parser.currentName();
      JsonToken value = parser.nextToken();
      message |= name.equals("message") && value == JsonToken.VALUE_STRING;
      type |= name.equals("type") && value == JsonToken.VALUE_STRING;
      parser.skipChildren();
    }
    return message && type;
  }
}
