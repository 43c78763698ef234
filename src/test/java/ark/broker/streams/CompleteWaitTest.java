package ark.broker.streams;

import ark.broker.contract.ArkHttp;
import ark.broker.contract.BrokerUnderTest;
import ark.broker.contract.RawExchange;
import ark.broker.contract.StreamContract;
import ark.broker.testing.BrokerExtension;
import ark.broker.testing.TestBroker;
import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code /complete} for a stream with no chunk yet waits {@code streams.completeWaitMillis} for one (its post may be
 * on its way, on another connection or replica), and answers 404 only when none came.
 */
class CompleteWaitTest {
  private static final long WAIT_MILLIS = 1000;
  static TestBroker broker;

  @RegisterExtension
  static final BrokerExtension lifecycle = new BrokerExtension(new JsonObject()
      .put("streams", new JsonObject().put("completeWaitMillis", WAIT_MILLIS)), started -> broker = started);

  private static ArkHttp ark() {
    return BrokerUnderTest.at(broker.base).first();
  }

  @Test
  void aCompleteForAStreamNobodyPostsToAnswers404OnceTheWaitIsOver() throws Exception {
    long start = System.nanoTime();

    Response completion = ark().postJson("/stream/never-posted/complete", "{}");

    assertThat(completion.status()).isEqualTo(404);
    assertThat(completion.error().getString("message")).isEqualTo("Stream not found");
    assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(WAIT_MILLIS);
  }

  @Test
  void aCompleteForAnOpenPostThatSendsNoChunkAnswers404OnceTheWaitIsOver() throws Exception {
    try (RawExchange post = RawExchange.chunkedPost(ark().base(), "/stream/silent", "application/x-ndjson")) {
      post.piece(" ");
      long start = System.nanoTime();

      Response completion = ark().postJson("/stream/silent/complete", "{}");

      assertThat(completion.status()).isEqualTo(404);
      assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(WAIT_MILLIS);
      assertThat(post.finish(StreamContract.PROMPTLY).json().getInteger("chunks_received")).isZero();
    }
  }
}
