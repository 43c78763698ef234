package ark.broker.question;

import ark.broker.store.QuestionView;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Instant;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What happens to a question nobody answers: one step at a time, each once, in the order the delays say. */
class EscalationTest {
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final String BROKER = "ark://users/system:broker";

  private static JsonNode json(String text) {
    try {
      return QuestionJson.MAPPER.readTree(text.replace('\'', '"'));
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  /** A question for john created at T0 from a REST body with these extra fields. */
  private static Question asked(String extraFields) {
    return QuestionRequests.create(json("{'recipient':'ark://users/john','content':'Deploy?'" + extraFields + "}"))
        .toQuestion("q-1", T0);
  }

  @Test
  void remindsThenEscalatesThenTimesOutEachOnceAtItsTime() {
    Question question = asked(",'ttlSeconds':3600,'escalation':{'remindAfterSeconds':600,'escalateAfterSeconds':1800,"
        + "'escalateTo':['ark://teams/oncall']}");
    assertThat(question.nextDeadline()).isEqualTo(T0.plusSeconds(600));
    assertThat(question.followUpDue(T0.plusSeconds(599))).isNull();
    assertThat(question.followUp(T0.plusSeconds(599), BROKER)).isSameAs(question);

    Question reminded = question.followUp(T0.plusSeconds(600), BROKER);
    assertThat(reminded.followUps().remindedAt()).isEqualTo(T0.plusSeconds(600));
    assertThat(reminded.followUpDue(T0.plusSeconds(1000))).as("a reminder happens once").isNull();
    assertThat(reminded.nextDeadline()).isEqualTo(T0.plusSeconds(1800));
    assertThat(reminded.recipients()).containsExactly("ark://users/john");

    Question escalated = reminded.followUp(T0.plusSeconds(1800), BROKER);
    assertThat(escalated.followUps().escalatedAt()).isEqualTo(T0.plusSeconds(1800));
    assertThat(escalated.recipients()).containsExactly("ark://users/john", "ark://teams/oncall");
    assertThat(escalated.nextDeadline()).isEqualTo(T0.plusSeconds(3600));

    Question expired = escalated.followUp(T0.plusSeconds(3600), BROKER);
    assertThat(expired.outcome().status()).isEqualTo(QuestionStatus.EXPIRED);
    assertThat(expired.nextDeadline()).isNull();
    assertThat(expired.followUpDue(T0.plusSeconds(9999))).isNull();
  }

  @Test
  void stepsThatCameDueWhileNoBrokerRanHappenOneAtATimeEscalationFirst() {
    Question question = asked(",'ttlSeconds':3600,'escalation':{'remindAfterSeconds':60,'escalateAfterSeconds':120,"
        + "'escalateTo':['ark://users/ann']}");
    Instant late = T0.plusSeconds(1000);

    assertThat(question.followUpDue(late)).isEqualTo(EventType.ESCALATED);
    Question escalated = question.followUp(late, BROKER);
    assertThat(escalated.followUpDue(late)).isEqualTo(EventType.REMINDED);
    assertThat(escalated.followUp(late, BROKER).followUpDue(late)).isNull();
    assertThat(question.followUpDue(T0.plusSeconds(3600))).as("the timeout goes before anything else").isEqualTo(EventType.EXPIRED);
  }

  @Test
  void onTimeoutAnswersWithItsDefaultRecordedAsSuch() {
    Question approval = asked(",'kind':'approval','ttlSeconds':60,'escalation':{'onTimeout':{'decision':"
        + "{'action':'rejected','reason':'nobody decided in time'}}}");

    assertThat(approval.followUpDue(T0.plusSeconds(60))).isEqualTo(EventType.ANSWERED);
    Question decided = approval.followUp(T0.plusSeconds(60), BROKER);
    assertThat(decided.outcome().status()).isEqualTo(QuestionStatus.ANSWERED);
    assertThat(decided.outcome().answeredOnTimeout()).isTrue();
    assertThat(decided.outcome().answeredBy()).isEqualTo(BROKER);
    assertThat(decided.outcome().decision().action()).isEqualTo(Decision.Action.REJECTED);
    assertThat(decided.outcome().decision().reason()).isEqualTo("nobody decided in time");

    Question answeredByAPerson = approval.answer(new Reply.Verdict(Decision.Action.APPROVED, null, null), "ark://users/john", T0);
    assertThat(answeredByAPerson.outcome().answeredOnTimeout()).isFalse();
    assertThat(answeredByAPerson.followUpDue(T0.plusSeconds(60))).isNull();

    Question proceed = asked(",'options':['proceed','stop'],'ttlSeconds':60,'escalation':{'onTimeout':{'response':'proceed'}}")
        .followUp(T0.plusSeconds(61), BROKER);
    assertThat(proceed.outcome().response()).isEqualTo("proceed");
    assertThat(proceed.outcome().answeredOnTimeout()).isTrue();
  }

  @Test
  void anEscalatedQuestionIsSeenAndListedByThoseItWasEscalatedTo() {
    Question question = asked(",'escalation':{'escalateAfterSeconds':60,'escalateTo':['ark://teams/oncall']}");
    Audience oncall = new Audience(Set.of("ark://users/ann", "ark://teams/oncall"));
    QuestionFilter forOncall = new QuestionFilter(null, null, "ark://teams/oncall");
    assertThat(oncall.sees(question)).isFalse();
    assertThat(forOncall.matches(question)).isFalse();

    Question escalated = question.followUp(T0.plusSeconds(60), BROKER);
    assertThat(oncall.sees(escalated)).isTrue();
    assertThat(oncall.isRecipientOf(escalated)).isTrue();
    assertThat(forOncall.matches(escalated)).isTrue();

    QuestionView view = new QuestionView();
    view.apply(QuestionEvent.created(question), 1);
    assertThat(view.list(forOncall, QuestionOrder.OLDEST_FIRST, 10, null).items()).isEmpty();
    Question stored = view.get("q-1");
    view.apply(QuestionEvent.changed(EventType.ESCALATED, stored, stored.followUp(T0.plusSeconds(60), BROKER)), 2);
    assertThat(view.list(forOncall, QuestionOrder.OLDEST_FIRST, 10, null).items()).extracting(Question::id).containsExactly("q-1");
    assertThat(view.dueForFollowUp(T0.plusSeconds(10_000), 10)).as("nothing left to do").isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "'escalation':{'escalateAfterSeconds':60}                                  | escalateAfterSeconds and escalation.escalateTo go together",
      "'escalation':{'escalateTo':['ark://teams/oncall']}                        | escalateAfterSeconds and escalation.escalateTo go together",
      "'escalation':{'escalateAfterSeconds':60,'escalateTo':['oncall']}          | each of escalation.escalateTo must look like",
      "'escalation':{'remindAfterSeconds':0}                                     | escalation.remindAfterSeconds must be between 1",
      "'escalation':{'remindAfterSeconds':'soon'}                                | remindAfterSeconds must be a whole number",
      "'escalation':{'remindEverySeconds':60}                                    | unknown field 'remindEverySeconds' in escalation",
      "'escalation':{'onTimeout':{'response':'proceed'}}                         | give it expiresAt or ttlSeconds",
      "'ttlSeconds':60,'escalation':{'onTimeout':'answer'}                       | escalation.onTimeout must be \"expire\" or an answer",
      "'ttlSeconds':60,'escalation':{'onTimeout':{'response':'maybe'}},'options':['yes','no'] | escalation.onTimeout does not answer this question: response must be one of",
      "'ttlSeconds':60,'escalation':{'onTimeout':{'response':'x','answeredBy':'ark://users/a'}} | leave out answeredBy",
      "'ttlSeconds':60,'escalation':{'onTimeout':{}}                             | response is required",
      "'escalation':[]                                                           | escalation must be a JSON object",
  })
  void aBadEscalationIsRefusedNamingWhatIsWrong(String fields, String message) {
    assertThatThrownBy(() -> asked("," + fields.strip())).isInstanceOf(InvalidQuestionException.class)
        .hasMessageContaining(message.strip());
  }

  @Test
  void rulesGiveTheFirstMatchingEscalationToQuestionsThatBringNone() {
    List<EscalationRule> rules = EscalationRule.parse(json("[{'kind':'approval','escalation':{'remindAfterSeconds':60}},"
        + "{'priority':'high','escalation':{'remindAfterSeconds':30}},{'escalation':{'remindAfterSeconds':900}}]"));
    NewQuestion approval = QuestionRequests.create(json("{'recipient':'ark://users/john','content':'x','kind':'approval','priority':'high'}"));
    NewQuestion urgent = QuestionRequests.create(json("{'recipient':'ark://users/john','content':'x','priority':'high'}"));
    NewQuestion ownChoice = QuestionRequests.create(json("{'recipient':'ark://users/john','content':'x','escalation':{}}"));

    assertThat(approval.escalatedByDefault(EscalationRule.firstFor(rules, approval)).escalation().remindAfterSeconds()).isEqualTo(60);
    assertThat(urgent.escalatedByDefault(EscalationRule.firstFor(rules, urgent)).escalation().remindAfterSeconds()).isEqualTo(30);
    Question optedOut = ownChoice.escalatedByDefault(EscalationRule.firstFor(rules, ownChoice)).toQuestion("q-2", T0);
    assertThat(optedOut.nextDeadline()).as("an empty escalation opts out of the rules").isNull();

    assertThatThrownBy(() -> EscalationRule.parse(json("[{'escalation':{'remindAfterSeconds':60}},{'priority':'urgent','escalation':{}}]")))
        .hasMessageStartingWith("escalation.rules[1]: ");
    assertThatThrownBy(() -> EscalationRule.parse(json("[{'recipient':'ark://users/a'}]")))
        .hasMessage("escalation.rules[0]: escalation is required");
  }

  @Test
  void theEscalationTravelsThroughTheLogUnchanged() throws Exception {
    Question question = asked(",'ttlSeconds':60,'escalation':{'remindAfterSeconds':10,'escalateAfterSeconds':20,"
        + "'escalateTo':['ark://teams/oncall'],'onTimeout':{'response':'proceed'}}").followUp(T0.plusSeconds(20), BROKER);

    Question read = QuestionJson.MAPPER.readValue(QuestionJson.LOG_WRITER.writeValueAsBytes(question), Question.class);

    assertThat(read).isEqualTo(question);
    assertThat(read.followUps().escalatedAt()).isEqualTo(T0.plusSeconds(20));
  }
}
