package ark.broker.question;

/**
 * Which questions a list or a watch wants; a null field matches everything.
 *
 * @param text     words that the content or the context holds, case-insensitively (a plain substring, not a pattern)
 * @param audience whose questions the caller may see at all (null: everyone's, for admins and the broker itself)
 */
public record QuestionFilter(QuestionStatus status, String sender, String recipient, Priority priority, String text,
                             Audience audience) {
  public static final QuestionFilter ALL = new QuestionFilter(null, null, null);

  public QuestionFilter {
    if (text != null && text.isBlank()) {
      text = null;
    }
    if (text != null && text.length() > Limits.SHORT_TEXT) {
      throw new InvalidQuestionException("the search text is longer than " + Limits.SHORT_TEXT + " characters");
    }
  }

  public QuestionFilter(QuestionStatus status, String sender, String recipient) {
    this(status, sender, recipient, null, null, null);
  }

  public QuestionFilter(QuestionStatus status, String sender, String recipient, Priority priority, String text) {
    this(status, sender, recipient, priority, text, null);
  }

  public QuestionFilter seenBy(Audience seenBy) {
    return new QuestionFilter(status, sender, recipient, priority, text, seenBy);
  }

  public boolean matches(Question question) {
    return (status == null || status == question.outcome().status())
        && (sender == null || sender.equals(question.asked().sender()))
        && (recipient == null || question.asks(recipient))
        && (priority == null || priority == question.asked().priority())
        && (text == null || holds(question.asked().content(), text) || holds(question.asked().context(), text))
        && (audience == null || audience.sees(question));
  }

  private static boolean holds(String haystack, String needle) {
    if (haystack == null) {
      return false;
    }
    for (int at = 0; at + needle.length() <= haystack.length(); at++) {
      if (haystack.regionMatches(true, at, needle, 0, needle.length())) {
        return true;
      }
    }
    return false;
  }
}
