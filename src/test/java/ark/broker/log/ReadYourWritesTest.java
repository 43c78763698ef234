package ark.broker.log;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReadYourWritesTest {
  private final Vertx vertx = Vertx.vertx();
  private final ReadYourWrites<String> writes = new ReadYourWrites<>(vertx, 200);

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void aRecordAppliedBeforeItsAcknowledgementIsTheWritersOutcome() throws Exception {
    Promise<Long> append = Promise.promise();
    Future<String> outcome = writes.await(append.future());

    writes.applied(1, "someone else's");
    writes.applied(2, "mine");
    append.complete(2L);

    assertThat(outcome.await(1, TimeUnit.SECONDS)).isEqualTo("mine");
  }

  @Test
  void anAcknowledgementBeforeItsRecordWaitsForTheRecord() throws Exception {
    Promise<Long> append = Promise.promise();
    Future<String> outcome = writes.await(append.future());

    append.complete(3L);
    writes.applied(2, "someone else's");
    assertThat(outcome.isComplete()).isFalse();
    writes.applied(3, "mine");

    assertThat(outcome.await(1, TimeUnit.SECONDS)).isEqualTo("mine");
  }

  @Test
  void concurrentWritersEachLearnTheirOwnOutcome() throws Exception {
    Promise<Long> first = Promise.promise();
    Promise<Long> second = Promise.promise();
    Future<String> firstOutcome = writes.await(first.future());
    Future<String> secondOutcome = writes.await(second.future());

    writes.applied(1, "first won");
    second.complete(2L);
    writes.applied(2, "second lost");
    first.complete(1L);

    assertThat(firstOutcome.await(1, TimeUnit.SECONDS)).isEqualTo("first won");
    assertThat(secondOutcome.await(1, TimeUnit.SECONDS)).isEqualTo("second lost");
  }

  @Test
  void aFailedAppendFailsTheWrite() throws Exception {
    Future<String> outcome = writes.await(Future.failedFuture(new LogUnavailableException("disk full", null)));

    assertThatThrownBy(() -> outcome.await(1, TimeUnit.SECONDS)).hasMessageContaining("disk full");
  }

  @Test
  void aRecordNeverReadBackAnswersThatTheOutcomeIsUnknown() throws Exception {
    Future<String> outcome = writes.await(Future.succeededFuture(7L));

    assertThatThrownBy(() -> outcome.await(5, TimeUnit.SECONDS))
        .isInstanceOf(LogUnavailableException.class)
        .hasMessageContaining("not read it back within 200 ms");
  }
}
