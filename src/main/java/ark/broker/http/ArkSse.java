package ark.broker.http;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One event stream in the dialect of Ark's broker, which ark-api relays line by line and the dashboard reads with
 * EventSource's {@code onmessage}: {@code : connected} at once, {@code : heartbeat} while idle, and each item as one
 * unnamed single-line {@code data:} event. A reader that lets too much pile up unread is cut off: it resumes with
 * its cursor, and the broker keeps no backlog for it.
 */
final class ArkSse implements HeldBytes.Reader {
  private static final Buffer CONNECTED = Buffer.buffer(": connected\n\n");
  private static final Buffer HEARTBEAT = Buffer.buffer(": heartbeat\n\n");
  private static final byte[] DATA = "data: ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final byte[] END = {'\n', '\n'};

  /** How long a reader cut off has to take its last words before its connection closes. */
  private static final long LAST_WORDS_MILLIS = 1000;

  private final Vertx vertx;
  private final Context context;
  private final HttpServerResponse response;
  private final HttpConnection connection;
  private final HeldBytes budget;
  private final Runnable gone;
  private long heartbeat = -1;
  private boolean ended;
  /** Written to the connection and not yet taken by the client; read by the budget from any event loop. */
  private final AtomicLong unread = new AtomicLong();
  /** The response's end once it was asked for; null while it runs, or when the client left first. */
  private Future<Void> ending;
  /** Set, from any thread, when the budget cuts it off. */
  private volatile boolean cut;

  private ArkSse(RoutingContext ctx, HeldBytes budget, Runnable gone) {
    this.vertx = ctx.vertx();
    this.context = vertx.getOrCreateContext();
    this.response = ctx.response();
    this.connection = ctx.request().connection();
    this.budget = budget;
    this.gone = gone;
  }

  @Override
  public long unread() {
    return unread.get();
  }

  @Override
  public boolean servedHere() {
    return Vertx.currentContext() == context;
  }

  @Override
  public void cutOff(String why) {
    // Its event loop may be busy writing to it for a while yet: from now on what it would write is dropped.
    cut = true;
    Runnable closing = () -> {
      lastWords(why);
      close();
    };
    if (servedHere()) {
      // On its own event loop (the budget ran out while items were handed out here): what it holds goes now.
      closing.run();
    } else {
      context.runOnContext(now -> closing.run());
    }
  }

  /**
   * Sends the stream's headers and {@code : connected} now, and a heartbeat while idle; what it holds unread counts
   * against the process's budget ({@link HeldBytes}).
   *
   * @param gone runs once, when the stream ends for any reason
   */
  static ArkSse open(RoutingContext ctx, ArkApiSettings settings, Runnable gone) {
    HttpServerResponse response = ctx.response();
    ArkSse sse = new ArkSse(ctx, HeldBytes.shared(ctx.vertx(), settings.maxHeldBytes()), gone);
    response.setChunked(true).setStatusCode(200)
        .putHeader("Content-Type", "text/event-stream")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("Connection", "keep-alive")
        .putHeader("X-Accel-Buffering", "no")
        .setWriteQueueMaxSize((int) Math.min(Integer.MAX_VALUE, settings.maxUnreadBytes()));
    sse.budget.register(sse);
    sse.send(CONNECTED);
    sse.heartbeat = sse.vertx.setPeriodic(settings.heartbeatMillis(), tick -> sse.write(HEARTBEAT));
    response.closeHandler(closed -> {
      sse.stopped();
      sse.budget.unregister(sse);
    });
    return sse;
  }

  /** One item as a {@code data:} event; a reader too far behind is cut off instead. */
  void data(byte[] json) {
    write(frame(json));
  }

  /**
   * An event made once by {@link #frame} and sent to many readers: each write takes a view of it, not a copy, so an
   * item fanned out to every watch on an event loop is encoded once there.
   */
  void frame(Buffer event) {
    write(event);
  }

  /** One item as a {@code data:} event. */
  static Buffer frame(byte[] json) {
    return Buffer.buffer(json.length + 8).appendBytes(DATA).appendBytes(json).appendBytes(END);
  }

  /** {@code data: <text>} as it is, such as {@code [DONE]}. */
  void dataText(String text) {
    data(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  boolean ended() {
    return ended;
  }

  /** Whether the reader keeps up: when not, {@link #whenDrained} says when to go on writing. */
  boolean writable() {
    return !ended && !response.writeQueueFull();
  }

  void whenDrained(Runnable next) {
    response.drainHandler(drained -> next.run());
  }

  void end() {
    if (!ended) {
      stopped();
      ending = response.end();
      // Until its client has taken all, a stream that ended still holds bytes the budget may have to free.
      ending.onComplete(taken -> budget.unregister(this));
    }
  }

  private void write(Buffer frame) {
    if (ended || cut) {
      return;
    }
    if (response.writeQueueFull()) {
      cut("you let more than this broker holds for one reader wait unread; resume from your cursor");
      return;
    }
    send(frame);
  }

  private void send(Buffer frame) {
    int bytes = frame.length();
    unread.addAndGet(bytes);
    budget.holdUnread(bytes);
    response.write(frame).onComplete(taken -> {
      unread.addAndGet(-bytes);
      budget.release(bytes);
    });
  }

  /**
   * Ends the stream with a last comment saying why, and closes its connection once that is taken, or after a moment
   * when it is not: a reader that stopped reading resumes from its cursor, with nothing held for it here.
   */
  private void cut(String why) {
    lastWords(why);
    long timer = vertx.setTimer(LAST_WORDS_MILLIS, late -> close());
    ending.onComplete(taken -> {
      vertx.cancelTimer(timer);
      close();
    });
  }

  private void lastWords(String why) {
    if (!ended) {
      stopped();
      ending = response.end(Buffer.buffer(": closed: " + why + "\n\n"));
    }
  }

  private void close() {
    budget.unregister(this);
    connection.close();
  }

  private void stopped() {
    if (ended) {
      return;
    }
    ended = true;
    vertx.cancelTimer(heartbeat);
    gone.run();
  }
}
