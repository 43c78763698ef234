package ark.broker.question;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Gives questions that do not bring their own {@code escalation} one from configuration
 * ({@code escalation.rules}): every question that matches all the fields given (a missing field matches
 * anything) gets the first matching rule's escalation, fixed when the question is created.
 */
public record EscalationRule(String recipient, String sender, Priority priority, QuestionKind kind, Escalation escalation) {
  private static final Set<String> FIELDS = Set.of("recipient", "sender", "priority", "kind", "escalation");

  /** Reads the rules, naming the one at fault: a bad rule stops the start. */
  public static List<EscalationRule> parse(JsonNode rules) {
    List<EscalationRule> parsed = new ArrayList<>();
    if (rules == null || rules.isNull()) {
      return parsed;
    }
    if (!rules.isArray()) {
      throw new InvalidQuestionException("escalation.rules must be an array of rules");
    }
    for (int i = 0; i < rules.size(); i++) {
      String where = "escalation.rules[" + i + "]";
      try {
        JsonNode rule = rules.get(i);
        QuestionRequests.requireObject(where, rule, FIELDS);
        if (!rule.hasNonNull("escalation")) {
          throw new InvalidQuestionException("escalation is required");
        }
        parsed.add(new EscalationRule(QuestionRequests.text(rule, "recipient"), QuestionRequests.text(rule, "sender"),
            rule.hasNonNull("priority") ? Priority.parse(QuestionRequests.text(rule, "priority")) : null,
            rule.hasNonNull("kind") ? QuestionKind.parse(QuestionRequests.text(rule, "kind")) : null,
            Escalation.parse(rule.get("escalation"))));
      } catch (InvalidQuestionException bad) {
        throw new InvalidQuestionException(where + ": " + bad.getMessage());
      }
    }
    return parsed;
  }

  /** The escalation the first matching rule gives the request, or null. */
  public static Escalation firstFor(List<EscalationRule> rules, NewQuestion request) {
    for (EscalationRule rule : rules) {
      if (rule.matches(request)) {
        return rule.escalation;
      }
    }
    return null;
  }

  boolean matches(NewQuestion request) {
    return (recipient == null || recipient.equals(request.recipient()))
        && (sender == null || sender.equals(request.sender()))
        && (priority == null || priority == request.priority())
        && (kind == null || kind == request.kind());
  }
}
