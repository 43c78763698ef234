package ark.broker.streams;

import ark.broker.contract.ArkHttp;
import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.Checks;
import ark.broker.contract.EventStreamLines;
import ark.broker.contract.RawExchange;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The bounds of Ark's stream routes: the longest NDJSON line and the readers of one stream (one event loop). */
class StreamBoundsTest {
  private static final int MAX_LINE_BYTES = 1024;
  private static final int MAX_READERS = 2;
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject()
      .put("http", new JsonObject().put("instances", 1))
      .put("arkApi", new JsonObject().put("maxStreamLineBytes", MAX_LINE_BYTES).put("maxReadersPerStream", MAX_READERS)),
      started -> broker = started);

  private static ArkHttp ark() {
    return BrokerUnderTest.at(broker.base).first();
  }

  @Test
  void aLineLongerThanAllowedIs413AndOnlyTheLinesBeforeItStay() throws Exception {
    String query = "q-long-line";
    JsonObject first = Checks.chunk(query, "one");
    JsonObject second = Checks.chunk(query, "two");
    String tooLong = Checks.chunk(query, "x".repeat(MAX_LINE_BYTES)).encode();
    try (RawExchange post = RawExchange.chunkedPost(broker.base, "/stream/" + query, "application/x-ndjson")) {
      post.piece(first.encode() + "\n" + second.encode() + "\n" + tooLong + "\n"
          + Checks.chunk(query, "after").encode() + "\n");
      RawExchange.Answer refused = post.answer(Duration.ofSeconds(10));

      assertThat(refused.status()).isEqualTo(413);
      assertThat(refused.json().getJsonObject("error").getString("code")).isEqualTo("PAYLOAD_TOO_LARGE");
    }
    assertThat(ark().postJson("/stream/" + query + "/complete", "{}").status()).isEqualTo(200);
    try (EventStreamLines reader = ark().watch("/stream/" + query + "?from-beginning=true")) {
      assertThat(reader.nextJson()).isEqualTo(first);
      assertThat(reader.nextJson()).isEqualTo(second);
      assertThat(reader.nextData()).isEqualTo("[DONE]");
    }
  }

  @Test
  void oneReaderMoreThanAllowedGets503AndAReaderThatLeftFreesItsPlace() throws Exception {
    String path = "/stream/q-busy";
    EventStreamLines leaving = ark().watch(path);
    try (EventStreamLines staying = ark().watch(path)) {
      assertThat(leaving.status()).isEqualTo(200);
      assertThat(staying.status()).isEqualTo(200);

      Response refused = ark().get(path);
      assertThat(refused.status()).isEqualTo(503);
      assertThat(refused.json().getJsonObject("error").getString("code")).isEqualTo("SERVICE_UNAVAILABLE");

      leaving.close();
      assertThat(readerAdmittedWithin(path, Duration.ofSeconds(10))).as("a reader admitted once one left").isTrue();
    }
  }

  /** The server notices a reader left when its connection closes: new readers are refused until then. */
  private static boolean readerAdmittedWithin(String path, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      try (EventStreamLines reader = ark().watch(path)) {
        if (reader.status() == 200) {
          return true;
        }
      }
    }
    return false;
  }
}
