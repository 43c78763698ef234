package ark.broker.bench;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

import java.util.function.Consumer;

/** Splits a streamed text/event-stream body into the JSON of its data lines, frame by frame. */
final class SseFrames {
  private final StringBuilder pending = new StringBuilder();
  private final Consumer<JsonObject> onMessage;

  SseFrames(Consumer<JsonObject> onMessage) {
    this.onMessage = onMessage;
  }

  void feed(Buffer chunk) {
    pending.append(chunk.toString());
    int end;
    while ((end = pending.indexOf("\n\n")) >= 0) {
      String frame = pending.substring(0, end);
      pending.delete(0, end + 2);
      for (String line : frame.split("\n")) {
        if (line.startsWith("data: ") && line.length() > 6) {
          onMessage.accept(new JsonObject(line.substring(6)));
        }
      }
    }
  }
}
