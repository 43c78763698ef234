package ark.broker.http;

import ark.broker.auth.Actor;
import ark.broker.bus.Messages.SpanAppended;
import ark.broker.bus.TraceStore;
import ark.broker.bus.TraceStore.NewSpan;
import ark.broker.bus.TraceStore.SpanFilter;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

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
    ArkJson json = routes.json();
    routes.postDecoded(router, "/v1/traces", (type, body) -> decode(json, type, body), this::export);
    routes.get(router, "/traces", this::list);
    routes.get(router, "/traces/:traceId", this::trace);
    routes.purge(router, "/traces", "GET", ctx -> ArkRoutes.deleted(ctx, traces.deleteAll(ArkRoutes.actor(ctx)),
        "Trace data purged"));
  }

  /** The spans of an export request, or what upstream answers one it cannot read. */
  private record Export(List<NewSpan> spans, String invalid) {
  }

  /** Counts the spans as it decodes them: more than a request may carry is 413 before any is built. */
  private Export decode(ArkJson json, String contentType, byte[] body) {
    String type = Objects.requireNonNullElse(contentType, "").toLowerCase(Locale.ROOT);
    try {
      if (type.contains("protobuf")) {
        return new Export(OtlpSpans.fromProtobuf(body, settings.maxSpansPerRequest()), null);
      }
      if (type.contains("json")) {
        return new Export(OtlpSpans.fromJson(json, body, settings.maxSpansPerRequest()), null);
      }
      throw new OtlpSpans.Invalid("Unsupported Content-Type " + (type.isEmpty() ? "(none)" : type)
          + ": send application/x-protobuf or application/json");
    } catch (OtlpSpans.Invalid invalid) {
      return new Export(null, invalid.getMessage());
    }
  }

  private void export(RoutingContext ctx) {
    Export export = ArkBodyReader.decoded(ctx, Export.class);
    if (export.invalid() != null) {
      ArkRoutes.json(ctx, 400, new JsonObject().put("error", export.invalid()));
      return;
    }
    traces.append(ArkRoutes.actor(ctx), export.spans())
        .onSuccess(appended -> ArkRoutes.json(ctx, 200, new JsonObject()))
        .onFailure(ctx::fail);
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
      ArkRoutes.items(ctx, new ItemsBody().text("{\"traceId\":" + ArkRoutes.quoted(traceId) + ",\"spans\":")
          .items(page.items()).text("}"));
    }).onFailure(ctx::fail);
  }
}
