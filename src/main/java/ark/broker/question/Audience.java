package ark.broker.question;

import java.util.Set;

/**
 * The questions a caller may see: those it sent and those addressed to it, by its own name or a team's.
 *
 * @param names the caller's name and its teams' names
 */
public record Audience(Set<String> names) {
  public Audience {
    names = Set.copyOf(names);
  }

  public boolean sees(Question question) {
    return (question.asked().sender() != null && names.contains(question.asked().sender())) || isRecipientOf(question);
  }

  /** Whether the question is addressed to one of these names (to the caller or one of its teams), at first or by escalation. */
  public boolean isRecipientOf(Question question) {
    for (String name : names) {
      if (question.asks(name)) {
        return true;
      }
    }
    return false;
  }
}
