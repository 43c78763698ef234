package ark.broker.http;

import ark.broker.contract.OtlpRequests;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.CapturedLog;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import ch.qos.logback.classic.Level;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.zip.DeflaterOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bodies that would take a broker's memory or an event loop if decoded as they ask: compressed bombs, millions of
 * spans in a few kilobytes, deep nesting, forms. Sent as Ark's in-cluster callers send (no token, from a trusted
 * network), each is refused with a 4xx in the routes' envelope, allocating no more than the limits let it, logging
 * no ERROR line, and the broker goes on serving.
 */
class ArkBodyBoundsTest {
  /** What decoding a refused bomb may allocate, on every thread together: a few times the 10 MiB body limit. */
  private static final long BOUNDED_ALLOCATION = 100L << 20;

  static TestBroker broker;
  @RegisterExtension
  static final BrokerExtension lifecycle = BrokerExtension.withIdentities(new JsonObject()
      .put("auth", new JsonObject().put("clusterNetworks", new JsonArray().add("127.0.0.0/8").add("::1"))),
      started -> broker = started);

  private CapturedLog log;

  @BeforeEach
  void capture() {
    log = CapturedLog.all();
  }

  @AfterEach
  void noErrorLineAndStillServing() throws Exception {
    log.close();
    assertThat(log.events()).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
        .as("ERROR lines").isEmpty();
    Response export = post("/v1/traces", "application/x-protobuf", null, OtlpRequests.protobuf(
        OtlpRequests.randomId(16), List.of(OtlpRequests.randomId(8)), "s-after", "svc"));
    assertThat(export.status()).as("a trace export after it").isEqualTo(200);
    assertThat(broker.get("/memory-status").status()).isEqualTo(200);
  }

  @Test
  void aGzipProtobufOfMillionsOfEmptySpansIs413BeforeTheyAreBuilt() throws Exception {
    byte[] bomb = OtlpRequests.gzip(ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
        .addScopeSpans(ScopeSpans.newBuilder().addAllSpans(Collections.nCopies(2_500_000, Span.getDefaultInstance()))))
        .build().toByteArray());
    assertThat(bomb.length).as("a few kilobytes").isLessThan(10_000);

    Response refused = allocationBounded(() -> post("/v1/traces", "application/x-protobuf", "gzip", bomb));

    assertThat(refused.status()).isEqualTo(413);
    assertThat(refused.error().getString("code")).isEqualTo("PAYLOAD_TOO_LARGE");
    assertThat(refused.error().getString("message")).contains("10000 spans");
  }

  @Test
  void aGzipJsonExportOfTooManySpansIs413BeforeTheyAreBuilt() throws Exception {
    String span = "{\"traceId\":\"AQ==\"},";
    String spans = span.repeat(9_000_000 / span.length());
    byte[] bomb = OtlpRequests.gzip(("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[" + spans + "{\"traceId\":\"AQ==\"}]}]}]}")
        .getBytes(StandardCharsets.UTF_8));

    Response refused = allocationBounded(() -> post("/v1/traces", "application/json", "gzip", bomb));

    assertThat(refused.status()).isEqualTo(413);
    assertThat(refused.error().getString("code")).isEqualTo("PAYLOAD_TOO_LARGE");
  }

  @Test
  void aBodyThatInflatesPastTheLimitIs413AsSoonAsItDoes() throws Exception {
    byte[] zeros = new byte[24 << 20];
    Arrays.fill(zeros, (byte) ' ');
    byte[] padded = ("{\"conversation_id\":\"c-bomb\",\"query_id\":\"q\",\"messages\":[]" + " ".repeat(10)).getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.write(padded);
    body.write(zeros);
    body.write('}');
    byte[] gzipped = OtlpRequests.gzip(body.toByteArray());
    byte[] deflated = deflate(body.toByteArray());
    zeros = null;
    body = null;

    for (String[] route : new String[][] {{"/messages", "application/json"}, {"/events", "application/json"},
        {"/sessions", "application/json"}, {"/v1/traces", "application/json"}, {"/v1/traces", "application/x-protobuf"}}) {
      for (String encoding : new String[] {"gzip", "deflate"}) {
        byte[] bomb = encoding.equals("gzip") ? gzipped : deflated;
        Response refused = allocationBounded(() -> post(route[0], route[1], encoding, bomb));

        assertThat(refused.status()).as("%s %s %s", route[0], route[1], encoding).isEqualTo(413);
        assertThat(refused.error().getString("message")).contains("inflates to more than 10485760 bytes");
      }
    }
    assertThat(broker.get("/messages?conversation_id=c-bomb").json().getInteger("total")).isZero();
  }

  @Test
  void compressedBodiesWithinTheLimitAreInflatedAsUpstreamDoes() throws Exception {
    byte[] message = new JsonObject().put("conversation_id", "c-gzip").put("query_id", "q")
        .put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", "hi"))).toBuffer()
        .getBytes();

    assertThat(post("/messages", "application/json", "gzip", OtlpRequests.gzip(message)).status()).isEqualTo(200);
    assertThat(post("/messages", "application/json", "deflate", deflate(message)).status()).isEqualTo(200);
    assertThat(broker.get("/messages?conversation_id=c-gzip").json().getInteger("total")).isEqualTo(2);
  }

  @Test
  void anEncodingNotAcceptedIs415AndAStreamIsReadUncompressedOnly() throws Exception {
    byte[] chunk = OtlpRequests.gzip("{\"id\":\"chunk\"}\n".getBytes(StandardCharsets.UTF_8));

    Response brotli = post("/messages", "application/json", "br", "{}".getBytes(StandardCharsets.UTF_8));
    Response stream = post("/stream/q-gzip", "application/x-ndjson", "gzip", chunk);

    assertThat(brotli.status()).isEqualTo(415);
    assertThat(brotli.error().getString("code")).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
    assertThat(stream.status()).isEqualTo(415);
    assertThat(stream.error().getString("code")).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
    assertThat(broker.post("/stream/q-gzip/complete", "{}").status()).as("no chunk was kept").isEqualTo(404);
  }

  @Test
  void jsonNestedDeeperThanTheLimitIs400() throws Exception {
    String deep = "[".repeat(200) + "]".repeat(200);
    String message = "{\"conversation_id\":\"c-deep\",\"query_id\":\"q\",\"messages\":[" + deep + "]}";

    for (String[] route : new String[][] {{"/messages", message},
        {"/events", "{\"data\":{\"queryId\":\"q\",\"nested\":" + deep + "}}"},
        {"/sessions", "{\"sessionId\":\"s-deep\",\"nested\":" + deep + "}"},
        {"/v1/traces", "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"AQ==\",\"name\":" + deep + "}]}]}]}"},
        {"/messages", "[".repeat(1_000_000)}}) {
      Response refused = broker.post(route[0], route[1]);

      assertThat(refused.status()).as(route[0]).isEqualTo(400);
      assertThat(refused.error().getString("message")).as(route[0]).contains("nest deeper than 128 levels");
    }
    assertThat(broker.get("/messages?conversation_id=c-deep").json().getInteger("total")).isZero();
    assertThat(broker.post("/stream/q-deep", deep + "\n{\"id\":1}\n").json().getInteger("chunks_received"))
        .as("the deep line skipped, as a line that is not JSON is").isEqualTo(1);
  }

  @Test
  void formsAre415OnEveryPostBeforeTheirBodyIsRead() throws Exception {
    String multipart = "--XX\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n\r\nhello\r\n--XX--\r\n";
    for (String path : new String[] {"/messages", "/events", "/sessions", "/v1/traces", "/stream/q-form",
        "/stream/q-form/complete", "/conversations"}) {
      for (String[] form : new String[][] {{"application/x-www-form-urlencoded", "a=%zz&b=%"},
          {"application/x-www-form-urlencoded", "conversation_id=c&query_id=q"}, {"multipart/form-data", "junk"},
          {"multipart/form-data; boundary=XX", multipart}}) {
        Response refused = post(path, form[0], null, form[1].getBytes(StandardCharsets.UTF_8));

        assertThat(refused.status()).as("%s %s", path, form[0]).isEqualTo(415);
        assertThat(refused.error().getString("code")).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
      }
    }
    assertThat(broker.post("/stream/q-form/complete", "{}").status()).as("no chunk was kept").isEqualTo(404);
  }

  private interface Call {
    Response send() throws Exception;
  }

  /** The answer to {@code call}, checking that the broker's threads allocated no more than the limits let them. */
  private static Response allocationBounded(Call call) throws Exception {
    long before = allocated();
    Response answer = call.send();
    long allocated = allocated() - before;
    assertThat(allocated).as("bytes allocated while answering %s", answer).isLessThan(BOUNDED_ALLOCATION);
    return answer;
  }

  private static long allocated() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    return Arrays.stream(threads.getThreadAllocatedBytes(threads.getAllThreadIds())).filter(bytes -> bytes > 0).sum();
  }

  private static Response post(String path, String type, String encoding, byte[] body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(broker.base.resolve(path)).header("Content-Type", type)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (encoding != null) {
      request.header("Content-Encoding", encoding);
    }
    return broker.send(request);
  }

  private static byte[] deflate(byte[] bytes) throws Exception {
    ByteArrayOutputStream deflated = new ByteArrayOutputStream();
    try (DeflaterOutputStream out = new DeflaterOutputStream(deflated)) {
      out.write(bytes);
    }
    return deflated.toByteArray();
  }
}
