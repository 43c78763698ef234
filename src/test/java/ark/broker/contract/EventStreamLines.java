package ark.broker.contract;

import io.vertx.core.json.JsonObject;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A text/event-stream read line by line as the lines arrive, the way ark-api relays it: the checks see the framing
 * itself (comments, blank lines, one {@code data:} line per event), not only what an EventSource would make of it.
 */
public final class EventStreamLines implements AutoCloseable {
  /** Comes after the last line once the server ended the stream (or the connection broke). */
  static final String END = "\u0000end-of-stream";
  private static final Duration DATA_WITHIN = Duration.ofSeconds(10);

  private final HttpResponse<InputStream> response;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  /** Every line taken so far, for failure messages. */
  private final List<String> taken = new ArrayList<>();

  EventStreamLines(HttpResponse<InputStream> response) {
    this.response = response;
    Thread reader = new Thread(this::read, "contract-sse-lines");
    reader.setDaemon(true);
    reader.start();
  }

  public int status() {
    return response.statusCode();
  }

  public String header(String name) {
    return response.headers().firstValue(name).orElse(null);
  }

  /** The next line as it came (without its line end), {@link #END} after the last, or null if none came in time. */
  public String nextLine(Duration within) throws InterruptedException {
    String line = lines.poll(within.toMillis(), TimeUnit.MILLISECONDS);
    if (line != null && !line.equals(END)) {
      taken.add(line);
    }
    if (END.equals(line)) {
      lines.add(END);
    }
    return line;
  }

  /**
   * The payload of the next {@code data:} line, skipping comments and blank lines; null once the stream ended.
   * Fails if no event comes within 10 s, or if the event is not one unnamed single-line {@code data:} line.
   */
  public String nextData() throws InterruptedException {
    return nextData(DATA_WITHIN);
  }

  public String nextData(Duration within) throws InterruptedException {
    return nextData(within, true);
  }

  /**
   * The payload of the next {@code data:} line if one comes within {@code within} (comments, such as heartbeats,
   * skipped), else null: what a check that expects nothing more asserts on.
   */
  public String dataWithin(Duration within) throws InterruptedException {
    return nextData(within, false);
  }

  private String nextData(Duration within, boolean required) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      String line = nextLine(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      if (line == null && !required) {
        return null;
      }
      if (line == null) {
        throw new AssertionError("no event within " + within + "; lines so far: " + taken);
      }
      if (line.equals(END)) {
        return null;
      }
      if (line.isEmpty() || line.startsWith(":")) {
        continue;
      }
      if (!line.startsWith("data: ")) {
        throw new AssertionError("an event line other than 'data: ' (ark-api relays each line as an event of its own): "
            + line + "; lines so far: " + taken);
      }
      String after = nextLine(Duration.ofSeconds(5));
      if (after == null || !after.isEmpty()) {
        throw new AssertionError("a data line not followed by a blank line (multi-line data is split by ark-api's"
            + " relay): " + line + " then " + after);
      }
      return line.substring("data: ".length());
    }
  }

  /** The next event's JSON object; fails if the stream ended or the data is not an object. */
  public JsonObject nextJson() throws InterruptedException {
    String data = nextData();
    if (data == null) {
      throw new AssertionError("the stream ended; lines so far: " + taken);
    }
    return new JsonObject(data);
  }

  /** Waits for a comment line {@code : text}, skipping anything else; false if none came in time. */
  public boolean commentWithin(String text, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    for (String line = nextLine(within); line != null && !line.equals(END);
         line = nextLine(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
      if (line.startsWith(":") && line.substring(1).trim().equals(text)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the server ends the stream within {@code within}, with no other event before it. */
  public boolean endsWithin(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      String line = nextLine(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      if (line == null) {
        return false;
      }
      if (line.equals(END)) {
        return true;
      }
      if (!line.isEmpty() && !line.startsWith(":")) {
        throw new AssertionError("an event where the stream should have ended: " + line);
      }
    }
  }

  /** Every line until the server ends the stream; fails if it does not within {@code within}. */
  public List<String> linesUntilEnd(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    List<String> rest = new ArrayList<>();
    while (true) {
      String line = nextLine(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
      if (line == null) {
        throw new AssertionError("the stream did not end within " + within + "; lines so far: " + taken);
      }
      if (line.equals(END)) {
        return rest;
      }
      rest.add(line);
    }
  }

  /** The lines taken so far. */
  public List<String> taken() {
    return List.copyOf(taken);
  }

  private void read() {
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        lines.add(line);
      }
    } catch (Exception ignored) {
      // closed by the check or by the server: either way the stream has ended
    }
    lines.add(END);
  }

  @Override
  public void close() throws Exception {
    response.body().close();
  }
}
