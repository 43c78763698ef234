package ark.broker.http;

import ark.broker.auth.Actor;
import ark.broker.bus.Messages.SpanAppended;
import ark.broker.bus.TraceStore;
import ark.broker.bus.TraceStore.NewSpan;
import ark.broker.bus.TraceStore.SpanFilter;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.zip.GZIPInputStream;

/**
 * OpenTelemetry traces as Ark's broker serves them: {@code POST /v1/traces} in OTLP/HTTP protobuf (what Ark's
 * controller and Python SDK send) or JSON, gzipped or not, answered as upstream answers ({@code 200 {}}, or
 * {@code {"error":"..."}}); the trace list (newest first), one trace, their watches (every span carrying the
 * {@code sequence} it resumes from) and the purge.
 */
final class TraceRoutes {
  private final TraceStore traces;
  private final ArkApiSettings settings;
  private final ArkWatches<SpanAppended> watches;

  TraceRoutes(TraceStore traces, ArkApiSettings settings, ArkWatches<SpanAppended> watches) {
    this.traces = traces;
    this.settings = settings;
    this.watches = watches;
  }

  void mount(Router router, ArkRoutes routes) {
    routes.postJson(router, "/v1/traces", this::export);
    routes.get(router, "/traces", this::list);
    routes.get(router, "/traces/:traceId", this::trace);
    routes.delete(router, "/traces", ctx -> ArkRoutes.deleted(ctx, traces.deleteAll(ArkRoutes.actor(ctx)),
        "Trace data purged"));
  }

  private void export(RoutingContext ctx) {
    List<NewSpan> spans;
    try {
      byte[] body = decompressed(ctx);
      String type = Objects.requireNonNullElse(ctx.request().getHeader("Content-Type"), "").toLowerCase(Locale.ROOT);
      if (type.contains("protobuf")) {
        spans = OtlpSpans.fromProtobuf(body);
      } else if (type.contains("json")) {
        spans = OtlpSpans.fromJson(body);
      } else {
        throw new OtlpSpans.Invalid("Unsupported Content-Type " + (type.isEmpty() ? "(none)" : type)
            + ": send application/x-protobuf or application/json");
      }
    } catch (OtlpSpans.Invalid invalid) {
      ArkRoutes.json(ctx, 400, new JsonObject().put("error", invalid.getMessage()));
      return;
    }
    traces.append(ArkRoutes.actor(ctx), spans)
        .onSuccess(appended -> ArkRoutes.json(ctx, 200, new JsonObject()))
        .onFailure(ctx::fail);
  }

  /** The request's body, inflated when gzipped, never beyond the body limit (413 otherwise, as for a raw body). */
  private byte[] decompressed(RoutingContext ctx) throws OtlpSpans.Invalid {
    Buffer raw = ctx.body().buffer();
    byte[] body = raw == null ? new byte[0] : raw.getBytes();
    String encoding = Objects.requireNonNullElse(ctx.request().getHeader("Content-Encoding"), "identity").trim()
        .toLowerCase(Locale.ROOT);
    if (encoding.equals("identity") || encoding.isEmpty()) {
      return body;
    }
    if (!encoding.equals("gzip")) {
      throw new OtlpSpans.Invalid("Unsupported Content-Encoding " + encoding + ": send gzip or none");
    }
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, body.length * 4));
      byte[] chunk = new byte[16 * 1024];
      for (int read = in.read(chunk); read >= 0; read = in.read(chunk)) {
        if (out.size() + read > settings.bodyLimitBytes()) {
          throw new ArkProblem(413, "PAYLOAD_TOO_LARGE", "the request body inflates to more than "
              + settings.bodyLimitBytes() + " bytes");
        }
        out.write(chunk, 0, read);
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new OtlpSpans.Invalid("Failed to decompress the gzip body: " + e.getMessage());
    }
  }

  /** A page of traces (newest first), or the watch of their spans; of a session when {@code session_id} is given. */
  private void list(RoutingContext ctx) {
    boolean watching = ArkQuery.watching(ctx);
    String session = ArkQuery.text(ctx, "session_id");
    Long cursor = ArkQuery.nonNegative(ctx, "cursor");
    ArkQuery.flag(ctx, "from-beginning");
    Actor actor = ArkRoutes.actor(ctx);
    if (watching) {
      watches.open(ctx, span -> session == null || session.equals(span.sessionId()))
          .from(cursor, (after, limit) -> traces.spans(actor, new SpanFilter(null, session), after, limit));
      return;
    }
    traces.traces(actor, session, cursor, ArkQuery.pageLimit(ctx))
        .onSuccess(page -> ArkRoutes.page(ctx, page))
        .onFailure(ctx::fail);
  }

  /** One trace's spans in order (404 when it has none), or their watch. */
  private void trace(RoutingContext ctx) {
    String traceId = ctx.pathParam("traceId");
    boolean watching = ArkQuery.watching(ctx);
    Long cursor = ArkQuery.nonNegative(ctx, "cursor");
    boolean fromBeginning = Boolean.TRUE.equals(ArkQuery.flag(ctx, "from-beginning"));
    ArkQuery.text(ctx, "session_id");
    Actor actor = ArkRoutes.actor(ctx);
    SpanFilter filter = new SpanFilter(traceId, null);
    if (watching) {
      watches.open(ctx, span -> traceId.equals(span.traceId()))
          .from(fromBeginning ? Long.valueOf(0) : cursor, (after, limit) -> traces.spans(actor, filter, after, limit));
      return;
    }
    traces.spans(actor, filter, 0, 0).onSuccess(page -> {
      if (page.items().isEmpty()) {
        ctx.fail(ArkProblem.notFound("Trace not found"));
        return;
      }
      ArkRoutes.rawJson(ctx, 200, new ItemsBody().text("{\"traceId\":" + ArkRoutes.quoted(traceId) + ",\"spans\":")
          .items(page.items()).text("}").buffer());
    }).onFailure(ctx::fail);
  }
}
