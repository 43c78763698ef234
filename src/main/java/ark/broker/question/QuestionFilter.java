package ark.broker.question;

/**
 * Which questions a list or a watch wants; a null field matches everything.
 *
 * @param audience whose questions the caller may see at all (null: everyone's, for admins and the broker itself)
 */
public record QuestionFilter(QuestionStatus status, String sender, String recipient, Audience audience) {
  public static final QuestionFilter ALL = new QuestionFilter(null, null, null);

  public QuestionFilter(QuestionStatus status, String sender, String recipient) {
    this(status, sender, recipient, null);
  }

  public QuestionFilter seenBy(Audience seenBy) {
    return new QuestionFilter(status, sender, recipient, seenBy);
  }

  public boolean matches(Question question) {
    return (status == null || status == question.status())
        && (sender == null || sender.equals(question.sender()))
        && (recipient == null || recipient.equals(question.recipient()))
        && (audience == null || audience.sees(question));
  }
}
