package ark.broker.contract;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/**
 * OTLP/HTTP trace export requests as Ark's controller and Python SDK send them (protobuf) and as a JSON exporter
 * does, with the spans upstream renders from them.
 */
public final class OtlpRequests {
  private static final SecureRandom RANDOM = new SecureRandom();
  static final long START_NANOS = 1_700_000_000_000_000_000L;

  private OtlpRequests() {
  }

  public static byte[] randomId(int bytes) {
    byte[] id = new byte[bytes];
    RANDOM.nextBytes(id);
    return id;
  }

  public static String base64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  /**
   * One protobuf export request of {@code spanIds.size()} CLIENT spans of trace {@code traceId}, each with the
   * session attribute and an integer attribute, status OK, from service {@code service}.
   */
  public static byte[] protobuf(byte[] traceId, List<byte[]> spanIds, String session, String service) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(InstrumentationScope.newBuilder().setName("ark"));
    for (byte[] spanId : spanIds) {
      scope.addSpans(Span.newBuilder().setTraceId(ByteString.copyFrom(traceId)).setSpanId(ByteString.copyFrom(spanId))
          .setName("llm.chat").setKind(Span.SpanKind.SPAN_KIND_CLIENT)
          .setStartTimeUnixNano(START_NANOS).setEndTimeUnixNano(START_NANOS + 1_000_000_000L)
          .addAttributes(KeyValue.newBuilder().setKey("ark.session.id").setValue(AnyValue.newBuilder().setStringValue(session)))
          .addAttributes(KeyValue.newBuilder().setKey("tokens").setValue(AnyValue.newBuilder().setIntValue(42)))
          .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_OK)));
    }
    return ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
        .setResource(Resource.newBuilder().addAttributes(KeyValue.newBuilder().setKey("service.name")
            .setValue(AnyValue.newBuilder().setStringValue(service))))
        .addScopeSpans(scope)).build().toByteArray();
  }

  /**
   * A span of {@link #protobuf} as upstream stores and shows it: protobufjs's {@code toObject} with longs and enums
   * as strings, bytes as base64, defaults filled in; the resource's attributes flattened; scope dropped.
   */
  static JsonObject protobufRendered(byte[] traceId, byte[] spanId, String session, String service) {
    return new JsonObject().put("traceId", base64(traceId)).put("spanId", base64(spanId)).put("parentSpanId", "")
        .put("name", "llm.chat").put("kind", "SPAN_KIND_CLIENT")
        .put("startTimeUnixNano", Long.toString(START_NANOS))
        .put("endTimeUnixNano", Long.toString(START_NANOS + 1_000_000_000L))
        .put("attributes", new JsonArray()
            .add(new JsonObject().put("key", "ark.session.id").put("value", new JsonObject().put("stringValue", session)))
            .add(new JsonObject().put("key", "tokens").put("value", new JsonObject().put("intValue", "42"))))
        .put("status", new JsonObject().put("message", "").put("code", "STATUS_CODE_OK"))
        .put("resource", new JsonObject().put("service.name", service));
  }

  /** An OTLP/JSON span with the session attribute, as a JSON exporter sends it (ids as the sender wrote them). */
  public static JsonObject jsonSpan(String traceId, String spanId, String session) {
    return new JsonObject().put("traceId", traceId).put("spanId", spanId).put("name", "query.execute").put("kind", 1)
        .put("startTimeUnixNano", "1").put("endTimeUnixNano", "2")
        .put("attributes", new JsonArray().add(new JsonObject().put("key", "ark.session.id")
            .put("value", new JsonObject().put("stringValue", session))))
        .put("status", new JsonObject().put("code", 1));
  }

  /** One OTLP/JSON export request of {@code spans} from service {@code service}. */
  public static JsonObject json(String service, List<JsonObject> spans) {
    return new JsonObject().put("resourceSpans", new JsonArray().add(new JsonObject()
        .put("resource", new JsonObject().put("attributes", new JsonArray().add(new JsonObject().put("key", "service.name")
            .put("value", new JsonObject().put("stringValue", service)))))
        .put("scopeSpans", new JsonArray().add(new JsonObject().put("scope", new JsonObject().put("name", "t"))
            .put("spans", new JsonArray(List.copyOf(spans)))))));
  }

  public static byte[] gzip(byte[] bytes) throws IOException {
    ByteArrayOutputStream zipped = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(zipped)) {
      out.write(bytes);
    }
    return zipped.toByteArray();
  }
}
