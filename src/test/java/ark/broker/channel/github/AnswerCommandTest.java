package ark.broker.channel.github;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AnswerCommandTest {
  private static final String ID = "q-1b4e28ba-2fa1-41d2-883f-0016d3cca427";

  @Test
  void theAnswerIsTheRestOfTheLine() {
    assertThat(AnswerCommand.parse("/answer yes")).isEqualTo(new AnswerCommand("answer", null, "yes"));
    assertThat(AnswerCommand.parse("LGTM\n  /answer  ship it  \nthanks")).isEqualTo(new AnswerCommand("answer", null, "ship it"));
  }

  @Test
  void aQuestionIdAfterTheCommandSaysWhichQuestion() {
    assertThat(AnswerCommand.parse("/answer " + ID + " no")).isEqualTo(new AnswerCommand("answer", ID, "no"));
    assertThat(AnswerCommand.parse("/answer q-tip is a fine answer")).isEqualTo(new AnswerCommand("answer", null, "q-tip is a fine answer"));
  }

  @Test
  void withNothingAfterTheCommandTheFollowingLinesAreTheAnswer() {
    assertThat(AnswerCommand.parse("/answer " + ID + "\nFirst line.\nSecond line.\n")).isEqualTo(new AnswerCommand("answer", ID, "First line.\nSecond line."));
  }

  @Test
  void commentsWithoutACommandAtTheStartOfALineHaveNone() {
    assertThat(AnswerCommand.parse("Use /answer yes to answer")).isNull();
    assertThat(AnswerCommand.parse("> /answer yes")).isNull();
    assertThat(AnswerCommand.parse("/answered already")).isNull();
  }

  @Test
  void approveAndRejectCarryTheirReason() {
    assertThat(AnswerCommand.parse("/approve looks fine")).isEqualTo(new AnswerCommand("approve", null, "looks fine"));
    assertThat(AnswerCommand.parse("/reject " + ID)).isEqualTo(new AnswerCommand("reject", ID, ""));
    assertThat(AnswerCommand.parse("/approved")).isNull();
  }
}
