package ark.broker.contract;

import ark.broker.testing.TestBroker.Response;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static ark.broker.contract.Checks.assertError;
import static ark.broker.contract.Checks.assertSuccess;
import static ark.broker.contract.Checks.items;
import static ark.broker.contract.Checks.unique;
import static ark.broker.contract.Checks.withoutCursor;
import static ark.broker.contract.OtlpRequests.base64;
import static ark.broker.contract.OtlpRequests.randomId;
import static org.assertj.core.api.Assertions.assertThat;

/** OpenTelemetry traces: {@code POST /v1/traces} (OTLP/HTTP protobuf, JSON, gzip) and the {@code /traces} routes. */
public interface TracesContract extends ContractCheck {
  String SERVICE = "ark-controller";

  /** Posts one OTLP request; upstream answers 200 with the JSON {@code {}}. */
  default void postOtlp(ArkHttp replica, String contentType, byte[] body, boolean gzipped) throws Exception {
    HttpRequest.Builder request = replica.request("/v1/traces").header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(gzipped ? OtlpRequests.gzip(body) : body));
    if (gzipped) {
      request.header("Content-Encoding", "gzip");
    }
    Response response = replica.send(request);
    assertThat(response.status()).as("POST /v1/traces: %s", response).isEqualTo(200);
    assertThat(response.json()).isEqualTo(new JsonObject());
  }

  default void postOtlpJson(ArkHttp replica, List<JsonObject> spans) throws Exception {
    postOtlp(replica, "application/json", OtlpRequests.json(SERVICE, spans).encode().getBytes(StandardCharsets.UTF_8),
        false);
  }

  /** The spans of a trace, each without the cursor a broker beyond upstream may add. */
  private List<JsonObject> spansOf(String traceId) throws Exception {
    Response response = ark().get("/traces/" + java.net.URLEncoder.encode(traceId, StandardCharsets.UTF_8));
    assertThat(response.status()).as("GET /traces/%s: %s", traceId, response).isEqualTo(200);
    assertThat(response.json().getString("traceId")).isEqualTo(traceId);
    return response.json().getJsonArray("spans").stream().map(JsonObject.class::cast).map(Checks::withoutCursor).toList();
  }

  @Test
  default void otlpJsonSpansAreStoredAsSent() throws Exception {
    String traceId = unique("trace");
    String session = unique("s");
    JsonObject parent = OtlpRequests.jsonSpan(traceId, "s1", session);
    JsonObject child = new JsonObject().put("traceId", traceId).put("spanId", "s2").put("parentSpanId", "s1")
        .put("name", "llm.chat");
    postOtlpJson(ark(), List.of(parent, child));
    JsonObject resource = new JsonObject().put("service.name", SERVICE);
    assertThat(spansOf(traceId)).containsExactly(parent.copy().put("resource", resource),
        child.copy().put("attributes", new JsonArray()).put("resource", resource));
  }

  @Test
  default void otlpProtobufSpansShowAsUpstreamRendersThem() throws Exception {
    byte[] traceId = randomId(16);
    byte[] first = randomId(8);
    byte[] second = randomId(8);
    String session = unique("s");
    postOtlp(ark(), "application/x-protobuf", OtlpRequests.protobuf(traceId, List.of(first, second), session, SERVICE),
        false);
    assertThat(spansOf(base64(traceId))).containsExactly(
        OtlpRequests.protobufRendered(traceId, first, session, SERVICE),
        OtlpRequests.protobufRendered(traceId, second, session, SERVICE));
  }

  @Test
  default void gzippedOtlpRequestsAreAccepted() throws Exception {
    byte[] traceId = randomId(16);
    byte[] spanId = randomId(8);
    String session = unique("s");
    postOtlp(ark(), "application/x-protobuf", OtlpRequests.protobuf(traceId, List.of(spanId), session, SERVICE), true);
    assertThat(spansOf(base64(traceId))).containsExactly(OtlpRequests.protobufRendered(traceId, spanId, session, SERVICE));
    String jsonTrace = unique("trace");
    postOtlp(ark(), "application/json", OtlpRequests.json(SERVICE, List.of(OtlpRequests.jsonSpan(jsonTrace, "s1", session)))
        .encode().getBytes(StandardCharsets.UTF_8), true);
    assertThat(spansOf(jsonTrace)).hasSize(1);
  }

  @Test
  default void aRealOpenTelemetryExporterSendsSpansThatReadBackAsUpstreamRendersThem() throws Exception {
    for (String compression : new String[] {"none", "gzip"}) {
      String session = unique("s");
      OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder()
          .setEndpoint(ark().uri("/v1/traces").toString()).setCompression(compression).build();
      ReadableSpan root;
      ReadableSpan child;
      try (SdkTracerProvider provider = SdkTracerProvider.builder()
          .setResource(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), SERVICE)))
          .addSpanProcessor(BatchSpanProcessor.builder(exporter).build()).build()) {
        Tracer tracer = provider.get("ark.contract");
        Span rootSpan = tracer.spanBuilder("query.execute").setSpanKind(SpanKind.SERVER)
            .setAttribute("ark.session.id", session).setAttribute("tokens", 42L).startSpan();
        try (Scope ignored = rootSpan.makeCurrent()) {
          Span childSpan = tracer.spanBuilder("llm.chat").setSpanKind(SpanKind.CLIENT)
              .setAttribute("ark.session.id", session).startSpan();
          childSpan.setStatus(StatusCode.ERROR, "boom");
          childSpan.end();
          child = (ReadableSpan) childSpan;
        }
        rootSpan.end();
        root = (ReadableSpan) rootSpan;
        CompletableResultCode flushed = provider.forceFlush().join(15, TimeUnit.SECONDS);
        assertThat(flushed.isSuccess()).as("the exporter's export (compression %s) succeeded", compression).isTrue();
      }
      String traceId = base64(HexFormat.of().parseHex(root.getSpanContext().getTraceId()));
      List<JsonObject> spans = spansOf(traceId);
      assertThat(spans).as("compression %s", compression).containsExactly(
          exported(child, root, "SPAN_KIND_CLIENT", new JsonObject().put("message", "boom").put("code", "STATUS_CODE_ERROR")),
          exported(root, null, "SPAN_KIND_SERVER", new JsonObject().put("message", "").put("code", "STATUS_CODE_UNSET")));
      assertThat(spans.get(1).getJsonArray("attributes")).contains(new JsonObject().put("key", "ark.session.id")
          .put("value", new JsonObject().put("stringValue", session)));
    }
  }

  /**
   * An SDK span as upstream shows it once exported over OTLP/HTTP protobuf: ids in base64, enums by name, 64-bit
   * integers as strings, the attributes in the order the exporter sent them.
   */
  private static JsonObject exported(ReadableSpan span, ReadableSpan parent, String kind, JsonObject status) {
    JsonArray attributes = new JsonArray();
    span.toSpanData().getAttributes().forEach((key, value) -> attributes.add(new JsonObject().put("key", key.getKey())
        .put("value", new JsonObject().put(value instanceof Long ? "intValue" : "stringValue", value.toString()))));
    return new JsonObject()
        .put("traceId", base64(HexFormat.of().parseHex(span.getSpanContext().getTraceId())))
        .put("spanId", base64(HexFormat.of().parseHex(span.getSpanContext().getSpanId())))
        .put("parentSpanId", parent == null ? "" : base64(HexFormat.of().parseHex(parent.getSpanContext().getSpanId())))
        .put("name", span.getName()).put("kind", kind)
        .put("startTimeUnixNano", Long.toString(span.toSpanData().getStartEpochNanos()))
        .put("endTimeUnixNano", Long.toString(span.toSpanData().getEndEpochNanos()))
        .put("attributes", attributes).put("status", status)
        .put("resource", new JsonObject().put("service.name", SERVICE));
  }

  @Test
  default void badOtlpRequestsAre400WithAnErrorString() throws Exception {
    Response garbage = ark().post("/v1/traces", "application/x-protobuf",
        "garbage-not-protobuf".getBytes(StandardCharsets.UTF_8));
    assertThat(garbage.status()).isEqualTo(400);
    assertThat(garbage.json()).isEqualTo(new JsonObject().put("error", "Failed to decode protobuf data"));
    Response notOtlp = ark().postJson("/v1/traces", "{\"foo\":1}");
    assertThat(notOtlp.status()).isEqualTo(400);
    assertThat(notOtlp.json())
        .isEqualTo(new JsonObject().put("error", "Invalid OTLP request format. Expected resourceSpans array."));
  }

  @Test
  default void tracesListNewestFirstWithAFirstSpanCursor() throws Exception {
    String session = unique("s");
    String[] traces = {unique("t1"), unique("t2"), unique("t3")};
    for (String trace : traces) {
      postOtlpJson(ark(), List.of(OtlpRequests.jsonSpan(trace, "s1", session)));
    }
    postOtlpJson(ark(), List.of(OtlpRequests.jsonSpan(unique("t-other"), "s1", unique("s"))));
    Response first = ark().get("/traces?session_id=" + session + "&limit=2");
    assertThat(items(first)).extracting(item -> item.getString("traceId")).containsExactly(traces[2], traces[1]);
    assertThat(items(first).get(0).getJsonArray("spans")).hasSize(1);
    assertThat(first.json().getInteger("total")).isEqualTo(3);
    assertThat(first.json().getBoolean("hasMore")).isTrue();
    Response second = ark().get("/traces?session_id=" + session + "&limit=2&cursor=" + first.json().getLong("nextCursor"));
    assertThat(items(second)).extracting(item -> item.getString("traceId")).containsExactly(traces[0]);
    assertThat(second.json().getBoolean("hasMore")).isFalse();
    assertError(ark().get("/traces?limit=0"), 400, "PAGINATION_ERROR");
  }

  @Test
  default void anUnknownTraceIs404() throws Exception {
    assertThat(assertError(ark().get("/traces/" + unique("none")), 404, "NOT_FOUND")).isEqualTo("Trace not found");
  }

  @Test
  default void traceWatchesSendNewSpansOfTheirSessionOrTrace() throws Exception {
    String session = unique("s");
    String trace = unique("trace");
    JsonObject first = OtlpRequests.jsonSpan(trace, "s1", session);
    JsonObject second = OtlpRequests.jsonSpan(trace, "s2", session);
    JsonObject resource = new JsonObject().put("service.name", SERVICE);
    postOtlpJson(ark(), List.of(first));
    try (EventStreamLines bySession = ark().watch("/traces?watch=true&session_id=" + session);
         EventStreamLines byTrace = ark().watch("/traces/" + trace + "?watch=true&from-beginning=true")) {
      assertThat(withoutCursor(byTrace.nextJson())).isEqualTo(first.copy().put("resource", resource));
      assertThat(bySession.nextLine(Duration.ofSeconds(5))).isEqualTo(": connected");
      postOtlpJson(ark(), List.of(OtlpRequests.jsonSpan(unique("trace"), "s1", unique("s"))));
      postOtlpJson(ark(), List.of(second));
      assertThat(withoutCursor(bySession.nextJson())).isEqualTo(second.copy().put("resource", resource));
      assertThat(withoutCursor(byTrace.nextJson())).isEqualTo(second.copy().put("resource", resource));
    }
  }

  @Test
  default void purgingTracesForgetsThem() throws Exception {
    String trace = unique("trace");
    postOtlpJson(ark(), List.of(OtlpRequests.jsonSpan(trace, "s1", unique("s"))));
    assertSuccess(ark().delete("/traces"), "Trace data purged");
    assertThat(ark().get("/traces/" + trace).status()).isEqualTo(404);
  }

  @BeyondUpstream("span items carry no cursor: a watcher cannot resume from the stream itself")
  default void traceWatchItemsCarryTheirCursorAndResumeWithoutGapsOrDuplicates() throws Exception {
    assertTraceWatchResumes(ark(), ark(), ark());
  }

  /** {@link ResumableWatch#assertResumes} for the spans of one session, one span per OTLP request. */
  default void assertTraceWatchResumes(ArkHttp watchOn, ArkHttp writeTo, ArkHttp resumeOn) throws Exception {
    String session = unique("s");
    String trace = unique("trace");
    ResumableWatch.assertResumes(watchOn, resumeOn, "/traces?watch=true&session_id=" + session,
        i -> postOtlpJson(writeTo, List.of(OtlpRequests.jsonSpan(trace, "span-" + i, session))),
        span -> span.getString("spanId"));
  }
}
