package ark.broker.http;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.WorkerExecutor;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * The bodies of POSTs to Ark's routes, read within limits. What HTML forms send is refused before a byte is read (a
 * page could make a browser on a trusted network post one, and form decoding is no part of these routes). A body read
 * whole is at most the body limit as sent, and, when gzip or deflate, at most the body limit once inflated, stopped as
 * soon as it passes it; what it decodes to (a JSON object, spans) is made off the event loop when it is compressed or
 * large, on a pool of its own, so a few hostile bodies can neither stall a loop nor take every worker thread.
 */
final class ArkBodyReader {
  /** Bodies up to this size as sent, and not compressed, are decoded on the event loop: faster than a hand-off. */
  static final int INLINE_BYTES = 64 * 1024;
  private static final String DECODED = "ark.decodedBody";

  /** What a route makes of its inflated body; refuses it with an {@link ArkProblem}. Runs on any thread. */
  interface Decoder<T> {
    T decode(String contentType, byte[] body);
  }

  private final long limit;
  private final WorkerExecutor pool;

  ArkBodyReader(long limit, WorkerExecutor pool) {
    this.limit = limit;
    this.pool = pool;
  }

  /** What {@link #decoding} made of this request's body. */
  static <T> T decoded(RoutingContext ctx, Class<T> type) {
    return type.cast(ctx.get(DECODED));
  }

  /** For a route whose handler reads the body itself, as sent: forms and compressed bodies get 415. */
  static void asSent(RoutingContext ctx) {
    try {
      refuseForms(ctx.request());
      if (ContentEncoding.of(ctx.request().getHeader("Content-Encoding")) != ContentEncoding.IDENTITY) {
        throw unsupported("Content-Encoding " + ctx.request().getHeader("Content-Encoding")
            + " is not accepted here: send the body uncompressed");
      }
      ctx.next();
    } catch (ArkProblem refused) {
      ctx.fail(refused);
    }
  }

  /** Reads the body whole, inflates and decodes it, and hands on to the next handler with {@link #decoded} set. */
  <T> Handler<RoutingContext> decoding(Decoder<T> decoder) {
    return ctx -> {
      HttpServerRequest request = ctx.request();
      ContentEncoding encoding;
      try {
        refuseForms(request);
        encoding = ContentEncoding.of(request.getHeader("Content-Encoding"));
        if (declaredLength(request) > limit) {
          throw tooLarge();
        }
      } catch (ArkProblem refused) {
        ctx.fail(refused);
        return;
      }
      Buffer raw = Buffer.buffer();
      request.handler(data -> {
        if (ctx.failed()) {
          return;
        }
        if (raw.length() + (long) data.length() > limit) {
          ctx.fail(tooLarge());
          return;
        }
        raw.appendBuffer(data);
      });
      // A body that broke off has no one left to answer.
      request.exceptionHandler(broken -> request.handler(null).endHandler(null));
      request.endHandler(ended -> {
        if (!ctx.failed()) {
          decode(ctx, decoder, encoding, raw);
        }
      });
      request.resume();
    };
  }

  private <T> void decode(RoutingContext ctx, Decoder<T> decoder, ContentEncoding encoding, Buffer raw) {
    String type = ctx.request().getHeader("Content-Type");
    Callable<T> decoding = () -> decoder.decode(type, encoding.inflate(raw.getBytes(), limit));
    Future<T> decoded = encoding == ContentEncoding.IDENTITY && raw.length() <= INLINE_BYTES
        ? inline(decoding) : pool.executeBlocking(decoding, false);
    decoded.onSuccess(body -> {
      ctx.put(DECODED, body);
      ctx.next();
    }).onFailure(ctx::fail);
  }

  private static <T> Future<T> inline(Callable<T> decoding) {
    try {
      return Future.succeededFuture(decoding.call());
    } catch (Exception refused) {
      return Future.failedFuture(refused);
    }
  }

  /** What reading the body may hold at most: as announced, or the limit when it is unannounced or compressed. */
  long mostHeld(HttpServerRequest request) {
    long declared = declaredLength(request);
    return declared < 0 || request.getHeader("Content-Encoding") != null ? limit : Math.min(declared, limit);
  }

  /** The announced length, or -1 when there is none or it is no number. */
  private static long declaredLength(HttpServerRequest request) {
    String length = request.getHeader("Content-Length");
    try {
      return length == null ? -1 : Long.parseLong(length.trim());
    } catch (NumberFormatException notANumber) {
      return -1;
    }
  }

  private static void refuseForms(HttpServerRequest request) {
    String type = request.getHeader("Content-Type");
    String lower = type == null ? "" : type.trim().toLowerCase(Locale.ROOT);
    if (lower.startsWith("application/x-www-form-urlencoded") || lower.startsWith("multipart/")) {
      throw unsupported("body: " + type + " is a form; Ark's broker routes take JSON (NDJSON on /stream, OTLP"
          + " protobuf or JSON on /v1/traces)");
    }
  }

  ArkProblem tooLarge() {
    return new ArkProblem(413, "PAYLOAD_TOO_LARGE", "the request body is larger than " + limit + " bytes");
  }

  static ArkProblem unsupported(String message) {
    return new ArkProblem(415, "UNSUPPORTED_MEDIA_TYPE", message);
  }
}
