package ark.broker.kube;

import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionKind;
import ark.broker.question.QuestionRequests;
import ark.broker.wire.QuestionJson;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The decision written to Ark, from approval questions and from those asked before approvals had a kind. */
class ApprovalQuestionTest {
  private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

  private static Question asked(QuestionKind kind, List<String> options) {
    return new NewQuestion(null, "ark://teams/approvers", null, "Approve?", null, options, null, true, kind, null, false,
        null, null, null, null, null, null, null).toQuestion("q-1", T0);
  }

  @Test
  void anApprovalsDecisionIsWhatArkReads() throws Exception {
    Question approval = asked(QuestionKind.APPROVAL, null);

    assertThat(ApprovalQuestion.decision(approval.answer(QuestionRequests.decision(
        QuestionJson.MAPPER.readTree("{\"action\":\"approved\",\"reason\":\"fine\"}")), null, T0))).isEqualTo("approved");
    assertThat(ApprovalQuestion.decision(approval.answer("reject", null, T0))).isEqualTo("rejected");
  }

  @Test
  void aQuestionAskedBeforeApprovalsHadAKindIsStillWrittenBack() {
    Question old = asked(null, List.of("approve", "reject"));

    assertThat(ApprovalQuestion.decision(old.answer("approve", null, T0))).isEqualTo("approved");
    assertThat(ApprovalQuestion.decision(old.answer("reject", null, T0))).isEqualTo("rejected");
  }
}
