package ark.broker.question;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QuestionTest {
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final Instant T1 = T0.plusSeconds(60);

  static Question pending(List<String> options, Instant expiresAt) {
    return new NewQuestion("ark://agents/a", "ark://users/john", null, "Merge?", null, options, null, true,
        expiresAt, null, null, null, null).toQuestion("q-1", T0);
  }

  @Test
  void aNewQuestionIsPendingWithItsTimes() {
    Question question = pending(null, null);

    assertThat(question.status()).isEqualTo(QuestionStatus.PENDING);
    assertThat(question.createdAt()).isEqualTo(T0);
    assertThat(question.updatedAt()).isEqualTo(T0);
    assertThat(question.resourceVersion()).isZero();
  }

  @Test
  void ttlCountsFromCreation() {
    Question question = new NewQuestion(null, "ark://users/john", null, "x", null, null, null, true, null, 30L,
        null, null, null).toQuestion("q-1", T0);

    assertThat(question.expiresAt()).isEqualTo(T0.plusSeconds(30));
  }

  @Test
  void anExpiryInThePastIsRefused() {
    NewQuestion request = new NewQuestion(null, "ark://users/john", null, "x", null, null, null, true,
        T0.minusSeconds(1), null, null, null, null);

    assertThatThrownBy(() -> request.toQuestion("q-1", T0)).hasMessageContaining("expiresAt must be in the future");
  }

  @Test
  void answeringRecordsTheAnswerAndWho() {
    Question answered = pending(null, null).answer("Yes, go", "ark://users/john", T1);

    assertThat(answered.status()).isEqualTo(QuestionStatus.ANSWERED);
    assertThat(answered.response()).isEqualTo("Yes, go");
    assertThat(answered.answeredBy()).isEqualTo("ark://users/john");
    assertThat(answered.answeredAt()).isEqualTo(T1);
    assertThat(answered.updatedAt()).isEqualTo(T1);
  }

  @Test
  void theFirstAnswerWins() {
    Question answered = pending(null, null).answer("yes", null, T1);

    assertThatThrownBy(() -> answered.answer("no", null, T1))
        .isInstanceOf(QuestionConflictException.class)
        .hasMessageContaining("already answered");
    assertThatThrownBy(() -> answered.cancel(T1)).isInstanceOf(QuestionConflictException.class);
    assertThatThrownBy(() -> answered.expire(T1)).isInstanceOf(QuestionConflictException.class);
  }

  @Test
  void anAnswerMustBeOneOfTheOptions() {
    Question question = pending(List.of("yes", "no"), null);

    assertThat(question.answer("no", null, T1).response()).isEqualTo("no");
    assertThatThrownBy(() -> question.answer("maybe", null, T1))
        .isInstanceOf(InvalidQuestionException.class)
        .hasMessageContaining("one of the question's options [yes, no]");
  }

  @Test
  void anEmptyAnswerIsRefused() {
    assertThatThrownBy(() -> pending(null, null).answer(" ", null, T1))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining("non-empty");
  }

  @Test
  void cancelledAndExpiredAreFinal() {
    Question cancelled = pending(null, null).cancel(T1);
    Question expired = pending(null, T1).expire(T1);

    assertThat(cancelled.status()).isEqualTo(QuestionStatus.CANCELLED);
    assertThat(expired.status()).isEqualTo(QuestionStatus.EXPIRED);
    assertThat(cancelled.status().isFinal()).isTrue();
    assertThatThrownBy(() -> cancelled.answer("yes", null, T1)).hasMessageContaining("already cancelled");
    assertThatThrownBy(() -> expired.answer("yes", null, T1)).hasMessageContaining("already expired");
  }

  @Test
  void isDueToExpireOnlyWhilePendingAndPastItsTime() {
    Question question = pending(null, T1);

    assertThat(question.isDueToExpire(T0)).isFalse();
    assertThat(question.isDueToExpire(T1)).isTrue();
    assertThat(question.answer("x", null, T0).isDueToExpire(T1)).isFalse();
    assertThat(pending(null, null).isDueToExpire(T1)).isFalse();
  }

  @Test
  void idsAreDerivedFromNamedRequests() {
    NewQuestion keyed = new NewQuestion("ark://agents/a", "ark://users/john", null, "x", null, null, null, true,
        null, null, null, null, "key-1");
    NewQuestion sameKeyOtherSender = new NewQuestion("ark://agents/b", "ark://users/john", null, "x", null, null,
        null, true, null, null, null, null, "key-1");
    NewQuestion toolCall = new NewQuestion(null, "ark://users/john", null, "x", null, null, null, true, null, null,
        new QueryRef("default", "q"), "call_1", null);
    NewQuestion anonymous = new NewQuestion(null, "ark://users/john", null, "x", null, null, null, true, null, null,
        null, null, null);

    assertThat(QuestionIds.forRequest(keyed)).isEqualTo(QuestionIds.forRequest(keyed)).startsWith("q-");
    assertThat(QuestionIds.forRequest(keyed)).isNotEqualTo(QuestionIds.forRequest(sameKeyOtherSender));
    assertThat(QuestionIds.forRequest(toolCall)).isEqualTo(QuestionIds.forRequest(toolCall));
    assertThat(QuestionIds.forRequest(anonymous)).isNotEqualTo(QuestionIds.forRequest(anonymous));
  }
}
