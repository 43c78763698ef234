package ark.broker.testing;

import io.vertx.core.json.JsonObject;

import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A text/event-stream read the way EventSource reads it, one event at a time. */
public final class SseStream implements AutoCloseable {
  private static final SseEvent END = new SseEvent(null, "end-of-stream", null, List.of());

  private final InputStream body;
  private final BlockingQueue<SseEvent> events = new LinkedBlockingQueue<>();
  private final BlockingQueue<String> comments = new LinkedBlockingQueue<>();
  public final int status;
  public final String contentType;
  public final java.net.http.HttpHeaders headers;
  private final java.util.concurrent.CompletableFuture<String> plainBody = new java.util.concurrent.CompletableFuture<>();

  /** One event; {@code comments} are the comment lines that came before it. */
  public record SseEvent(String id, String event, String data, List<String> comments) {
    public JsonObject json() {
      return new JsonObject(data);
    }
  }

  private SseStream(HttpResponse<InputStream> response) {
    this.body = response.body();
    this.status = response.statusCode();
    this.contentType = response.headers().firstValue("Content-Type").orElse("");
    this.headers = response.headers();
    Thread reader = new Thread(this::read, "sse-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** Sends any request whose response is an event stream. */
  public static SseStream open(HttpClient http, HttpRequest request) throws Exception {
    return of(http.send(request, HttpResponse.BodyHandlers.ofInputStream()));
  }

  public static SseStream of(HttpResponse<InputStream> response) {
    return new SseStream(response);
  }

  /** The next event, or null if none came within the time. An ended stream yields event "end-of-stream". */
  public SseEvent next(long timeout, TimeUnit unit) throws InterruptedException {
    return events.poll(timeout, unit);
  }

  public SseEvent next() throws InterruptedException {
    SseEvent event = next(10, TimeUnit.SECONDS);
    if (event == null) {
      throw new AssertionError("no event within 10 s");
    }
    return event;
  }

  /** The next event named {@code type}, passing over others; fails if none comes within 20 s of the last. */
  public SseEvent nextOfType(String type) throws InterruptedException {
    for (SseEvent event = next(20, TimeUnit.SECONDS); event != null; event = next(20, TimeUnit.SECONDS)) {
      if (type.equals(event.event())) {
        return event;
      }
    }
    throw new AssertionError("no " + type + " event came");
  }

  /** The next comment line (heartbeats are comments), or null if none came within the time. */
  public String nextComment(long timeout, TimeUnit unit) throws InterruptedException {
    return comments.poll(timeout, unit);
  }

  /** The whole body of a response that is not an event stream (a JSON answer, an error), once it has been read. */
  public String plainBody() throws Exception {
    return plainBody.get(10, TimeUnit.SECONDS);
  }

  private void read() {
    if (!contentType.startsWith("text/event-stream")) {
      try {
        plainBody.complete(new String(body.readAllBytes(), StandardCharsets.UTF_8));
      } catch (Exception cut) {
        plainBody.completeExceptionally(cut);
      }
      events.add(END);
      return;
    }
    SseParser parser = new SseParser(events::add, comments::add);
    char[] buffer = new char[8192];
    try (InputStreamReader reader = new InputStreamReader(body, StandardCharsets.UTF_8)) {
      for (int read = reader.read(buffer); read >= 0; read = reader.read(buffer)) {
        parser.feed(java.nio.CharBuffer.wrap(buffer, 0, read));
      }
    } catch (Exception ignored) {
      // closed by the test or by the server: either way the stream has ended
    }
    events.add(END);
  }

  @Override
  public void close() throws Exception {
    body.close();
  }
}
