package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.Locale;

/**
 * How a person decided an approval question.
 *
 * @param reason    why, in their words; or null
 * @param arguments the arguments they approved in place of the question's own (edited); or null
 * @param decidedBy who decided (the answering principal); null in open mode, as answeredBy is
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Decision(Action action, String reason, ObjectNode arguments, String decidedBy, Instant decidedAt) {

  /** Approve or reject, written as Ark writes an A2ATask's decision. */
  public enum Action {
    APPROVED, REJECTED;

    @JsonValue
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    public static Action parse(String value) {
      for (Action action : values()) {
        if (action.wireName().equals(value)) {
          return action;
        }
      }
      throw new InvalidQuestionException("decision.action must be approved or rejected, not '" + value + "'");
    }

    /**
     * The action a plain response names, so clients that only know {@code response} can still decide: approve,
     * approved, reject or rejected, in any letter case; null for anything else.
     */
    static Action ofResponse(String response) {
      return switch (response.strip().toLowerCase(Locale.ROOT)) {
        case "approve", "approved" -> APPROVED;
        case "reject", "rejected" -> REJECTED;
        default -> null;
      };
    }
  }
}
