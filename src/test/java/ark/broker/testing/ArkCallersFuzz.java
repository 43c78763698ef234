package ark.broker.testing;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;

/**
 * POSTs to Ark's broker routes with bodies as Ark's callers send them (memory messages, events, sessions, OTLP
 * exports in protobuf and JSON, NDJSON stream chunks), then mutated from one seed: truncated, bytes flipped, nested
 * deep, repeated, sent under another content type, compressed or not (and compressed wrongly). Each is a raw HTTP/1.1
 * request ({@link RawHttp}) that closes its connection; none of them may get a 5xx.
 */
public final class ArkCallersFuzz {
  private ArkCallersFuzz() {
  }

  /** One request, its bytes as ISO-8859-1 characters. */
  public static String request(Random random) {
    String path;
    String type;
    byte[] body;
    switch (random.nextInt(7)) {
      case 0 -> {
        path = "/messages";
        type = "application/json";
        body = json(new JsonObject().put("conversation_id", "c-" + random.nextInt(20)).put("query_id", "q-" + random.nextInt(20))
            .put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", "text " + random.nextInt()))));
      }
      case 1 -> {
        path = "/events";
        type = "application/json";
        body = json(new JsonObject().put("timestamp", "2026-11-26T00:00:00Z").put("eventType", "Normal")
            .put("reason", pick(random, "QueryExecutionStart", "QueryExecutionComplete")).put("message", "m")
            .put("data", new JsonObject().put("queryId", "uid-" + random.nextInt(20)).put("sessionId", "s-" + random.nextInt(5))));
      }
      case 2 -> {
        path = "/sessions";
        type = "application/json";
        body = json(new JsonObject().put("sessionId", "s-" + random.nextInt(5)).put("name", "session"));
      }
      case 3 -> {
        path = "/v1/traces";
        type = "application/x-protobuf";
        body = protobufExport(random);
      }
      case 4 -> {
        path = "/v1/traces";
        type = "application/json";
        body = json(new JsonObject().put("resourceSpans", new JsonArray().add(new JsonObject().put("scopeSpans",
            new JsonArray().add(new JsonObject().put("spans", new JsonArray().add(new JsonObject().put("traceId", "AQID")
                .put("spanId", "BAU=").put("name", "llm.chat").put("attributes", new JsonArray()))))))));
      }
      case 5 -> {
        path = "/stream/q-" + random.nextInt(20);
        type = pick(random, "application/x-ndjson", "application/json", "text/plain");
        body = ("{\"id\":\"chunk\",\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n{\"id\":\"chunk-2\"}"
            + (random.nextBoolean() ? "\n" : "")).getBytes(StandardCharsets.UTF_8);
      }
      default -> {
        path = pick(random, "/conversations", "/stream/q-" + random.nextInt(20) + "/complete");
        type = "application/json";
        body = "{}".getBytes(StandardCharsets.UTF_8);
      }
    }
    if (random.nextInt(3) > 0) {
      body = mutated(body, random);
    }
    if (random.nextInt(8) == 0) {
      type = pick(random, "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "multipart/form-data",
          "text/plain", "", "application/json; charset=utf-8", "application/x-protobuf");
      if (type.startsWith("application/x-www") && random.nextBoolean()) {
        body = pick(random, "a=%zz&b=%", "conversation_id=c&query_id=%E0%A4%A", "a=b&c=d").getBytes(StandardCharsets.UTF_8);
      }
    }
    String encoding = null;
    switch (random.nextInt(6)) {
      case 0 -> {
        encoding = "gzip";
        body = compressed(body, true);
      }
      case 1 -> {
        encoding = "deflate";
        body = compressed(body, false);
      }
      case 2 -> {
        encoding = pick(random, "br", "gzip, gzip", "x-gzip", "identity", "gzip");
        if (random.nextBoolean()) {
          body = mutated(compressed(body, true), random);
        }
      }
      default -> {
        // as it is
      }
    }
    return raw(path, type, encoding, body, random.nextInt(6) == 0);
  }

  private static byte[] protobufExport(Random random) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (int i = random.nextInt(4); i >= 0; i--) {
      scope.addSpans(Span.newBuilder().setTraceId(ByteString.copyFrom(new byte[16])).setSpanId(ByteString.copyFrom(new byte[8]))
          .setName("llm.chat").setKind(Span.SpanKind.SPAN_KIND_CLIENT).setStartTimeUnixNano(1).setEndTimeUnixNano(2)
          .addAttributes(KeyValue.newBuilder().setKey("ark.session.id").setValue(AnyValue.newBuilder().setStringValue("s-1"))));
    }
    return ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder().addScopeSpans(scope))
        .build().toByteArray();
  }

  private static byte[] mutated(byte[] body, Random random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    switch (random.nextInt(7)) {
      case 0 -> out.write(body, 0, random.nextInt(body.length + 1));
      case 1 -> {
        byte[] flipped = body.clone();
        for (int i = 1 + random.nextInt(4); i > 0 && flipped.length > 0; i--) {
          flipped[random.nextInt(flipped.length)] = (byte) random.nextInt(256);
        }
        out.writeBytes(flipped);
      }
      case 2 -> {
        int depth = pick(random, 100, 200, 5000, 100_000);
        out.writeBytes(("{\"x\":" + "[".repeat(depth) + "]".repeat(random.nextBoolean() ? depth : 0) + "}")
            .getBytes(StandardCharsets.UTF_8));
      }
      case 3 -> {
        int at = random.nextInt(body.length + 1);
        out.write(body, 0, at);
        for (int i = random.nextInt(50); i > 0; i--) {
          out.write(random.nextInt(256));
        }
        out.write(body, at, body.length - at);
      }
      case 4 -> {
        for (int i = 1 + random.nextInt(3000); i > 0; i--) {
          out.writeBytes(body);
        }
      }
      case 5 -> out.writeBytes(pick(random, "", "null", "[]", "\"text\"", "{\"a\":1,\"a\":2}", "{} {}", "a=%zz&b=%")
          .getBytes(StandardCharsets.UTF_8));
      default -> out.writeBytes(body);
    }
    return out.toByteArray();
  }

  private static byte[] compressed(byte[] body, boolean gzip) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (OutputStream out = gzip ? new GZIPOutputStream(bytes) : new DeflaterOutputStream(bytes)) {
      out.write(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static String raw(String path, String type, String encoding, byte[] body, boolean chunked) {
    StringBuilder request = new StringBuilder("POST ").append(path).append(" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    if (!type.isEmpty()) {
      request.append("Content-Type: ").append(type).append("\r\n");
    }
    if (encoding != null) {
      request.append("Content-Encoding: ").append(encoding).append("\r\n");
    }
    String bytes = new String(body, StandardCharsets.ISO_8859_1);
    if (chunked) {
      request.append("Transfer-Encoding: chunked\r\n\r\n");
      if (!bytes.isEmpty()) {
        request.append(Integer.toHexString(bytes.length())).append("\r\n").append(bytes).append("\r\n");
      }
      return request.append("0\r\n\r\n").toString();
    }
    return request.append("Content-Length: ").append(body.length).append("\r\n\r\n").append(bytes).toString();
  }

  private static byte[] json(JsonObject body) {
    return body.toBuffer().getBytes();
  }

  @SafeVarargs
  private static <T> T pick(Random random, T... choices) {
    return choices[random.nextInt(choices.length)];
  }
}
