package ark.broker.bus;

import ark.broker.log.LogRecordTooLargeException;
import ark.broker.log.LogUnavailableException;
import ark.broker.question.InvalidQuestionException;
import ark.broker.question.QuestionConflictException;
import ark.broker.question.QuestionNotFoundException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class StoreFailureTest {

  @ParameterizedTest
  @ValueSource(ints = {400, 401, 403, 404, 409, 410, 413, 500, 502, 503})
  void aReplyKeepsTheStatusItsRecipientChose(int status) {
    StoreFailure failure = StoreFailure.of(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, status, "refused"));

    assertThat(failure.reason().code).isEqualTo(status);
    assertThat(failure).hasMessage("refused");
  }

  @Test
  void aReplyKeepsWhenToRetry() {
    StoreFailure failure = StoreFailure.of(new StoreFailure(StoreFailure.Reason.TOO_MANY_REQUESTS, "slow down", 7).asReply());

    assertThat(failure.reason()).isEqualTo(StoreFailure.Reason.TOO_MANY_REQUESTS);
    assertThat(failure.retryAfterSeconds()).isEqualTo(7);
    assertThat(failure).hasMessage("slow down");
  }

  @Test
  void noReplyInTimeOrNoStoreYetIsUnavailable() {
    assertThat(StoreFailure.of(new ReplyException(ReplyFailure.TIMEOUT, "timed out")).reason())
        .isEqualTo(StoreFailure.Reason.UNAVAILABLE);
    assertThat(StoreFailure.of(new ReplyException(ReplyFailure.NO_HANDLERS, "no handlers")).reason())
        .isEqualTo(StoreFailure.Reason.UNAVAILABLE);
  }

  @Test
  void theDomainsRefusalsHaveTheirReasons() {
    assertThat(StoreFailure.of(new InvalidQuestionException("bad")).reason()).isEqualTo(StoreFailure.Reason.INVALID);
    assertThat(StoreFailure.of(new QuestionNotFoundException("q-1")).reason()).isEqualTo(StoreFailure.Reason.NOT_FOUND);
    assertThat(StoreFailure.of(new QuestionConflictException("answered")).reason()).isEqualTo(StoreFailure.Reason.CONFLICT);
    assertThat(StoreFailure.of(new IllegalStateException("bug")).reason()).isEqualTo(StoreFailure.Reason.INTERNAL);
  }

  @Test
  void theLogsRefusalsSayWhetherToRetry() {
    assertThat(StoreFailure.of(new LogUnavailableException("Kafka is away", null)).reason())
        .isEqualTo(StoreFailure.Reason.UNAVAILABLE);
    assertThat(StoreFailure.of(new LogRecordTooLargeException("larger than the topic takes", null)).reason())
        .as("a record too large for the log is the request's fault, not an outage").isEqualTo(StoreFailure.Reason.TOO_LARGE);
  }
}
