package ark.broker.http;

import ark.broker.bus.Messages.QuestionChange;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The text/event-stream frames the watch writes. */
final class SseFrames {
  static final Buffer HEARTBEAT = Buffer.buffer(": heartbeat\n\n");

  private SseFrames() {
  }

  /** {@code id:} is the change's resourceVersion, so EventSource reconnects resume right after it. */
  static Buffer change(QuestionChange change) {
    try {
      byte[] json = QuestionJson.MAPPER.writeValueAsBytes(change.question());
      String head = "id: " + change.position() + "\nevent: " + change.type().wireName() + "\ndata: ";
      return Buffer.buffer(head.length() + json.length + 2)
          .appendString(head, "US-ASCII").appendBytes(json).appendString("\n\n");
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Buffer opening(String comment, long retryMillis) {
    return Buffer.buffer(": " + comment + "\nretry: " + retryMillis + "\n\n", StandardCharsets.UTF_8.name());
  }

  static Buffer error(JsonObject error) {
    return Buffer.buffer("event: error\ndata: " + error.encode() + "\n\n", StandardCharsets.UTF_8.name());
  }
}
