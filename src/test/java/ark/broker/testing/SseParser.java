package ark.broker.testing;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Splits a text/event-stream into events the way EventSource does (id, event, multi-line data, comments), however
 * its text arrives cut into pieces: a blocking reader's, or a streaming client's chunks.
 */
public final class SseParser {
  private final Consumer<SseStream.SseEvent> onEvent;
  private final Consumer<String> onComment;
  private final StringBuilder line = new StringBuilder();
  private String id;
  private String event;
  private StringBuilder data;
  private List<String> comments = new ArrayList<>();

  /** @param onComment every comment line (heartbeats are comments) as it comes, without its colon */
  public SseParser(Consumer<SseStream.SseEvent> onEvent, Consumer<String> onComment) {
    this.onEvent = onEvent;
    this.onComment = onComment;
  }

  public SseParser(Consumer<SseStream.SseEvent> onEvent) {
    this(onEvent, comment -> { });
  }

  /** A parser that hands on the data of each event as JSON, as most streams this broker sends carry. */
  public static SseParser ofJson(Consumer<JsonObject> onData) {
    return new SseParser(event -> onData.accept(event.json()));
  }

  /** The next chunk of a streaming client's body. */
  public void feed(Buffer chunk) {
    feed(chunk.toString());
  }

  /** The next piece of the stream. */
  public void feed(CharSequence text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n') {
        int end = line.length() > 0 && line.charAt(line.length() - 1) == '\r' ? line.length() - 1 : line.length();
        onLine(line.substring(0, end));
        line.setLength(0);
      } else {
        line.append(c);
      }
    }
  }

  private void onLine(String text) {
    if (text.isEmpty()) {
      if (data != null) {
        onEvent.accept(new SseStream.SseEvent(id, event == null ? "message" : event, data.toString(), comments));
        comments = new ArrayList<>();
      }
      id = null;
      event = null;
      data = null;
    } else if (text.startsWith(":")) {
      String comment = text.substring(1).trim();
      comments.add(comment);
      onComment.accept(comment);
    } else if (text.startsWith("id:")) {
      id = text.substring(3).trim();
    } else if (text.startsWith("event:")) {
      event = text.substring(6).trim();
    } else if (text.startsWith("data:")) {
      String value = text.startsWith("data: ") ? text.substring(6) : text.substring(5);
      data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
    }
  }
}
