package ark.broker.question;

import ark.broker.wire.QuestionJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QuestionTest {
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final Instant T1 = T0.plusSeconds(60);

  static Question pending(List<String> options, Instant expiresAt) {
    return new NewQuestion("ark://agents/a", "ark://users/john", null, "Merge?", null, options, null, true, null, null, false, null,
        expiresAt, null, null, null, null, null).toQuestion("q-1", T0);
  }

  @Test
  void aNewQuestionIsPendingWithItsTimes() {
    Question question = pending(null, null);

    assertThat(question.outcome().status()).isEqualTo(QuestionStatus.PENDING);
    assertThat(question.createdAt()).isEqualTo(T0);
    assertThat(question.updatedAt()).isEqualTo(T0);
    assertThat(question.resourceVersion()).isZero();
  }

  @Test
  void ttlCountsFromCreation() {
    Question question = new NewQuestion(null, "ark://users/john", null, "x", null, null, null, true, null, null, false, null, null, 30L, null,
        null, null, null).toQuestion("q-1", T0);

    assertThat(question.followUps().expiresAt()).isEqualTo(T0.plusSeconds(30));
  }

  @Test
  void anExpiryInThePastIsRefused() {
    NewQuestion request = new NewQuestion(null, "ark://users/john", null, "x", null, null, null, true, null, null, false, null,
        T0.minusSeconds(1), null, null, null, null, null);

    assertThatThrownBy(() -> request.toQuestion("q-1", T0)).hasMessageContaining("expiresAt must be in the future");
  }

  @Test
  void answeringRecordsTheAnswerAndWho() {
    Question answered = pending(null, null).answer("Yes, go", "ark://users/john", T1);

    assertThat(answered.outcome().status()).isEqualTo(QuestionStatus.ANSWERED);
    assertThat(answered.outcome().response()).isEqualTo("Yes, go");
    assertThat(answered.outcome().answeredBy()).isEqualTo("ark://users/john");
    assertThat(answered.outcome().answeredAt()).isEqualTo(T1);
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

    assertThat(question.answer("no", null, T1).outcome().response()).isEqualTo("no");
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

    assertThat(cancelled.outcome().status()).isEqualTo(QuestionStatus.CANCELLED);
    assertThat(expired.outcome().status()).isEqualTo(QuestionStatus.EXPIRED);
    assertThat(cancelled.outcome().status().isFinal()).isTrue();
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
    NewQuestion keyed = new NewQuestion("ark://agents/a", "ark://users/john", null, "x", null, null, null, true, null, null, false, null,
        null, null, null, null, null, "key-1");
    NewQuestion sameKeyOtherSender = new NewQuestion("ark://agents/b", "ark://users/john", null, "x", null, null,
        null, true, null, null, false, null, null, null, null, null, null, "key-1");
    NewQuestion toolCall = new NewQuestion(null, "ark://users/john", null, "x", null, null, null, true, null, null, false, null, null, null, null,
        new QueryRef("default", "q"), "call_1", null);
    NewQuestion anonymous = new NewQuestion(null, "ark://users/john", null, "x", null, null, null, true, null, null, false, null, null, null, null,
        null, null, null);

    assertThat(QuestionIds.forRequest(keyed)).isEqualTo(QuestionIds.forRequest(keyed)).startsWith("q-");
    assertThat(QuestionIds.forRequest(keyed)).isNotEqualTo(QuestionIds.forRequest(sameKeyOtherSender));
    assertThat(QuestionIds.forRequest(toolCall)).isEqualTo(QuestionIds.forRequest(toolCall));
    assertThat(QuestionIds.forRequest(anonymous)).isNotEqualTo(QuestionIds.forRequest(anonymous));
  }

  @Test
  void idsOfUnnamedRequestsFollowTheOrderTheyWereMadeIn() {
    NewQuestion anonymous = new NewQuestion(null, "ark://users/john", null, "x", null, null, null, true, null, null, false, null, null, null, null,
        null, null, null);
    List<String> burst = IntStream.range(0, 5_000).mapToObj(i -> QuestionIds.forRequest(anonymous)).toList();

    assertThat(burst).isSorted().doesNotHaveDuplicates().allMatch(id -> id.startsWith("q-"));
    assertThat(UUID.fromString(burst.get(0).substring(2)).version()).isEqualTo(7);
    assertThat(UUID.fromString(burst.get(0).substring(2)).variant()).isEqualTo(2);
  }

  @Test
  void timeOrderedIdsKeepTheirOrderThroughAFullMillisecondAndAClockSetBack() {
    long now = System.currentTimeMillis();
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) { // more than one millisecond's counter holds
      ids.add(QuestionIds.timeOrdered(now));
    }
    ids.add(QuestionIds.timeOrdered(now - 60_000));

    assertThat(ids.stream().map(UUID::toString).toList()).isSorted().doesNotHaveDuplicates();
  }

  private static Question approval(boolean reasonRequired, String arguments) throws Exception {
    return new NewQuestion("ark://agents/a", "ark://users/john", null, "Delete the branch?", null, null, null, true,
        QuestionKind.APPROVAL, null, reasonRequired, arguments == null ? null
        : (com.fasterxml.jackson.databind.node.ObjectNode) ResponseSchemaTest.json(arguments), null, null, null, null, null, null)
        .toQuestion("q-1", T0);
  }

  private static Reply.Verdict verdict(String json) throws Exception {
    return QuestionRequests.decision(ResponseSchemaTest.json(json));
  }

  @Test
  void anApprovalIsDecidedWithAReasonByWhoAnswersWhenTheyAnswer() throws Exception {
    Question decided = approval(false, null).answer(verdict("{'action':'rejected','reason':' not today '}"), "ark://users/john", T1);

    assertThat(decided.outcome().decision()).isEqualTo(new Decision(Decision.Action.REJECTED, "not today", null, "ark://users/john", T1));
    assertThat(decided.outcome().response()).isEqualTo("rejected");
    assertThat(decided.outcome().answeredBy()).isEqualTo("ark://users/john");
    assertThat(decided.outcome().status()).isEqualTo(QuestionStatus.ANSWERED);
  }

  @Test
  void anApprovalTakesAResponseNamingAnActionFromClientsThatKnowNoDecisions() throws Exception {
    assertThat(approval(false, null).answer("Approve", null, T1).outcome().decision().action()).isEqualTo(Decision.Action.APPROVED);
    assertThatThrownBy(() -> approval(false, null).answer("maybe", null, T1))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining("is an approval: answer with a decision");
  }

  @Test
  void aRequiredReasonMustBeGiven() throws Exception {
    assertThatThrownBy(() -> approval(true, null).answer(verdict("{'action':'approved','reason':'  '}"), null, T1))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining("decision.reason is required");
    assertThatThrownBy(() -> approval(true, null).answer("approve", null, T1))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining("decision.reason is required");
  }

  @Test
  void editedArgumentsOnlyWhereTheQuestionOffersThemAndOnlyWhenApproved() throws Exception {
    Question offered = approval(false, "{'path':'/tmp/a'}");

    assertThat(offered.answer(verdict("{'action':'approved','arguments':{'path':'/tmp/b'}}"), null, T1).outcome().decision().arguments())
        .isEqualTo(ResponseSchemaTest.json("{'path':'/tmp/b'}"));
    assertThatThrownBy(() -> offered.answer(verdict("{'action':'rejected','arguments':{'path':'/tmp/b'}}"), null, T1))
        .hasMessageContaining("go with approved only");
    assertThatThrownBy(() -> offered.answer(verdict("{'action':'approved','arguments':'/tmp/b'}"), null, T1))
        .hasMessageContaining("decision.arguments must be a JSON object");
    assertThatThrownBy(() -> approval(false, null).answer(verdict("{'action':'approved','arguments':{}}"), null, T1))
        .hasMessageContaining("offers no arguments to edit");
  }

  @Test
  void aFormQuestionTakesOnlyACheckedAnswerObjectAndShowsItAsTextToo() throws Exception {
    Question form = new NewQuestion(null, "ark://users/john", null, "Ship?", null, null, null, true, null,
        ResponseSchemaTest.form(), false, null, null, null, null, null, null, null).toQuestion("q-1", T0);

    Question answered = form.answer(new Reply.Form(ResponseSchemaTest.json("{'name':'ann','count':2}")), null, T1);

    assertThat(answered.outcome().answer()).isEqualTo(ResponseSchemaTest.json("{'name':'ann','count':2}"));
    assertThat(answered.outcome().response()).isEqualTo("{\"name\":\"ann\",\"count\":2}");
    assertThatThrownBy(() -> form.answer("ann", null, T1)).hasMessageContaining("has a responseSchema: answer with an answer object");
    assertThatThrownBy(() -> form.answer(new Reply.Form(ResponseSchemaTest.json("{'name':'ann'}")), null, T1))
        .hasMessageContaining("answer.count is required");
    assertThatThrownBy(() -> pending(null, null).answer(new Reply.Form(ResponseSchemaTest.json("{}")), null, T1))
        .hasMessageContaining("takes a plain response");
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(delimiter = '|', textBlock = """
      {'recipient':'ark://users/a','content':'x','kind':'approval','options':['a']}  | leave out options and responseSchema
      {'recipient':'ark://users/a','content':'x','reasonRequired':true}             | reasonRequired and arguments belong to kind approval
      {'recipient':'ark://users/a','content':'x','kind':'vote'}                     | kind must be question or approval
      {'recipient':'ark://users/a','content':'x','kind':'approval','arguments':[1]} | arguments must be a JSON object
      {'recipient':'ark://users/a','content':'x','options':['a'],'responseSchema':{'type':'object','properties':{'a':{'type':'string'}}}} | give options or a responseSchema, not both
      """)
  void refusesKindsThatContradictThemselves(String body, String message) throws Exception {
    assertThatThrownBy(() -> QuestionRequests.create(ResponseSchemaTest.json(body)))
        .isInstanceOf(InvalidQuestionException.class).hasMessageContaining(message);
  }

  @Test
  void aRecordWrittenBeforeKindsReadsAsAPlainQuestion() throws Exception {
    Question old = QuestionJson.MAPPER.readValue("""
        {"id":"q-1","recipient":"ark://users/john","content":"Merge?","options":["yes","no"],"priority":"medium",
         "blocking":true,"status":"answered","response":"yes","createdAt":"2030-01-01T00:00:00Z",
         "updatedAt":"2030-01-01T00:00:00Z"}""", Question.class);

    assertThat(old.form().kind()).isEqualTo(QuestionKind.QUESTION);
    assertThat(old.outcome().answer()).isNull();
    assertThat(old.outcome().decision()).isNull();
    assertThat(QuestionJson.MAPPER.readValue(QuestionJson.LOG_WRITER.writeValueAsString(
        approval(true, "{'a':1}").answer(verdict("{'action':'approved','reason':'ok'}"), null, T1)), Question.class).outcome().decision())
        .isEqualTo(new Decision(Decision.Action.APPROVED, "ok", null, null, T1));
  }
}
