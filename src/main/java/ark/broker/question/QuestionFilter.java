package ark.broker.question;

/** Which questions a list or a watch wants; a null field matches everything. */
public record QuestionFilter(QuestionStatus status, String sender, String recipient) {
  public static final QuestionFilter ALL = new QuestionFilter(null, null, null);

  public boolean matches(Question question) {
    return (status == null || status == question.status())
        && (sender == null || sender.equals(question.sender()))
        && (recipient == null || recipient.equals(question.recipient()));
  }
}
