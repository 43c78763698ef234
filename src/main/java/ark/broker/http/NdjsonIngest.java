package ark.broker.http;

import ark.broker.auth.Actor;
import ark.broker.bus.StreamStore;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * One {@code POST /stream/{query}}: NDJSON read as it arrives, each line a chunk appended at once (so readers get it
 * while the request still posts), lines that are not JSON skipped as upstream skips them, the last line kept even
 * without its newline, whatever the content type. A request that does not bring its whole body at once (the Go
 * executor's one long post per Query) announces itself to the store first, so a completion that overtakes its tail
 * ends no reader before its last chunk. Answers {@code {"status":"stream_processed","query","chunks_received"}} once
 * every chunk is durable.
 */
final class NdjsonIngest {
  /** Batches of chunks on their way to the store before the request stops being read. */
  private static final int MAX_IN_FLIGHT = 32;

  private final RoutingContext ctx;
  private final StreamStore streams;
  private final Actor actor;
  private final String query;
  private final int maxLineBytes;
  private final ArkJson json;
  private Buffer partial = Buffer.buffer();
  /** Writes handed to the store and not settled yet: the answer waits for them without keeping each. */
  private int unsettled;
  /** What runs once every write handed to the store has settled, when the request ended or was refused. */
  private Runnable afterWrites;
  private String producer;
  private boolean started;
  private int inFlight;
  private int received;
  private boolean failed;
  /** A line was too long: the request reads no more, and is refused once the lines before that one are written. */
  private boolean refused;

  private NdjsonIngest(RoutingContext ctx, StreamStore streams, String query, int maxLineBytes, ArkJson json) {
    this.ctx = ctx;
    this.streams = streams;
    this.actor = ArkRoutes.actor(ctx);
    this.query = query;
    this.maxLineBytes = maxLineBytes;
    this.json = json;
  }

  static void run(RoutingContext ctx, StreamStore streams, String query, int maxLineBytes, ArkJson json) {
    NdjsonIngest ingest = new NdjsonIngest(ctx, streams, query, maxLineBytes, json);
    HttpServerRequest request = ctx.request();
    request.handler(ingest::received);
    request.endHandler(ended -> ingest.ended());
    request.exceptionHandler(failure -> ingest.fail(failure));
    request.resume();
  }

  private void received(Buffer data) {
    if (failed || refused) {
      return;
    }
    if (!started) {
      started = true;
      String length = ctx.request().getHeader("Content-Length");
      if (length == null || !length.trim().equals(Integer.toString(data.length()))) {
        producer = UUID.randomUUID().toString();
        track(streams.open(actor, query, producer));
      }
    }
    List<byte[]> chunks = new ArrayList<>();
    int from = 0;
    for (int at = 0; at < data.length(); at++) {
      if (data.getByte(at) == '\n') {
        partial.appendBuffer(data, from, at - from);
        if (lineTooLong(chunks)) {
          return;
        }
        line(chunks);
        from = at + 1;
      }
    }
    partial.appendBuffer(data, from, data.length() - from);
    if (!lineTooLong(chunks)) {
      send(chunks);
    }
  }

  /** A line longer than allowed ends the request with 413; the lines before it are kept. */
  private boolean lineTooLong(List<byte[]> before) {
    if (partial.length() <= maxLineBytes) {
      return false;
    }
    send(before);
    refused = true;
    ctx.request().handler(null);
    ArkProblem tooLong = new ArkProblem(413, "PAYLOAD_TOO_LARGE", "a line of the stream is longer than " + maxLineBytes
        + " bytes");
    // Answered once the lines before it are in the stream, so a /complete that follows the 413 finds them.
    afterWrites(() -> fail(tooLong));
    return true;
  }

  private void ended() {
    if (failed || refused) {
      return;
    }
    List<byte[]> last = new ArrayList<>(1);
    line(last);
    send(last);
    if (producer != null) {
      track(streams.close(actor, query, producer));
    }
    afterWrites(() -> {
      if (!failed) {
        ArkRoutes.json(ctx, 200, new JsonObject().put("status", "stream_processed").put("query", query)
            .put("chunks_received", received));
      }
    });
  }

  /**
   * The line gathered so far, if it is JSON (nesting no deeper than the limit), as a chunk; the gathered bytes are
   * cleared either way.
   */
  private void line(List<byte[]> chunks) {
    byte[] chunk = json.compactValue(partial.getBytes());
    partial = Buffer.buffer();
    // A line that is not one JSON value is skipped, not counted, as upstream does: one garbled line does not end an
    // answer being streamed.
    if (chunk != null) {
      chunks.add(chunk);
      received++;
    }
  }

  private void send(List<byte[]> chunks) {
    if (chunks.isEmpty() || failed) {
      return;
    }
    Future<Void> append = streams.append(actor, query, producer, chunks);
    track(append);
    if (++inFlight >= MAX_IN_FLIGHT) {
      ctx.request().pause();
    }
    append.onSuccess(done -> {
      if (inFlight-- == MAX_IN_FLIGHT && !failed) {
        ctx.request().resume();
      }
    });
  }

  /** A write handed to the store: a failure ends the request at once; {@link #afterWrites} waits for it. */
  private void track(Future<Void> write) {
    unsettled++;
    write.onComplete(done -> {
      if (done.failed()) {
        fail(done.cause());
      }
      if (--unsettled == 0 && afterWrites != null) {
        Runnable then = afterWrites;
        afterWrites = null;
        then.run();
      }
    });
  }

  /** Runs {@code then} once every write handed to the store so far has settled. */
  private void afterWrites(Runnable then) {
    if (unsettled == 0) {
      then.run();
    } else {
      afterWrites = then;
    }
  }

  private void fail(Throwable failure) {
    if (failed) {
      return;
    }
    failed = true;
    ctx.request().handler(null);
    if (producer != null) {
      // The poster is gone, so a completed stream ends for its readers now rather than after the producer's idle time.
      streams.close(actor, query, producer);
    }
    ctx.fail(failure);
  }
}
