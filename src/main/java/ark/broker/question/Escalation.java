package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * What happens to a question nobody answers: a reminder to the same people after {@code remindAfterSeconds},
 * more recipients ({@code escalateTo}) after {@code escalateAfterSeconds}, and at its expiry either the
 * expiry itself or a default answer ({@code onTimeout}, such as Ark's reject or proceed). Both delays count
 * from the question's creation. Given per question or by a rule of {@code escalation.rules}.
 *
 * @param onTimeout null to expire; else an answer body as {@code PATCH /questions/{id}} takes it, with one of
 *     {@code response}, {@code answer} or {@code decision}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Escalation(Long remindAfterSeconds, Long escalateAfterSeconds, List<String> escalateTo, ObjectNode onTimeout) {
  public static final String EXPIRE = "expire";

  public Escalation {
    requireDelay("escalation.remindAfterSeconds", remindAfterSeconds);
    requireDelay("escalation.escalateAfterSeconds", escalateAfterSeconds);
    escalateTo = escalateTo == null || escalateTo.isEmpty() ? null : List.copyOf(new LinkedHashSet<>(escalateTo));
    if ((escalateAfterSeconds == null) != (escalateTo == null)) {
      throw new InvalidQuestionException("escalation.escalateAfterSeconds and escalation.escalateTo go together: "
          + "after how long, and to whom (ark://users/<name> or ark://teams/<name>)");
    }
    if (escalateTo != null) {
      if (escalateTo.size() > Limits.CHANNELS) {
        throw new InvalidQuestionException("escalation.escalateTo may name at most " + Limits.CHANNELS + " recipients");
      }
      escalateTo.forEach(to -> ArkUri.require("each of escalation.escalateTo", to));
    }
    if (onTimeout != null) {
      onTimeout = onTimeout.deepCopy();
      QuestionRequests.answer(onTimeout);
      if (onTimeout.has("answeredBy")) {
        throw new InvalidQuestionException("escalation.onTimeout is answered by the broker: leave out answeredBy");
      }
    }
  }

  /** The default answer onTimeout gives, or null when the question simply expires. */
  @JsonIgnore
  public Reply timeoutReply() {
    return onTimeout == null ? null : QuestionRequests.answer(onTimeout).reply();
  }

  Instant remindAt(Instant createdAt) {
    return remindAfterSeconds == null ? null : createdAt.plusSeconds(remindAfterSeconds);
  }

  Instant escalateAt(Instant createdAt) {
    return escalateAfterSeconds == null ? null : createdAt.plusSeconds(escalateAfterSeconds);
  }

  /** Reads {@code escalation} from a request: an object of the fields above, onTimeout {@code "expire"} or an answer. */
  static Escalation parse(JsonNode node) {
    QuestionRequests.requireObject("escalation", node, java.util.Set.of("remindAfterSeconds", "escalateAfterSeconds",
        "escalateTo", "onTimeout"));
    JsonNode timeout = node.get("onTimeout");
    ObjectNode answer = null;
    if (timeout != null && !timeout.isNull() && !(timeout.isTextual() && EXPIRE.equals(timeout.textValue()))) {
      if (!timeout.isObject()) {
        throw new InvalidQuestionException("escalation.onTimeout must be \"expire\" or an answer such as "
            + "{\"response\": \"proceed\"} or {\"decision\": {\"action\": \"rejected\", \"reason\": \"...\"}}");
      }
      answer = (ObjectNode) timeout;
    }
    return new Escalation(QuestionRequests.wholeNumber(node, "remindAfterSeconds"),
        QuestionRequests.wholeNumber(node, "escalateAfterSeconds"), QuestionRequests.textList(node, "escalateTo"), answer);
  }

  private static void requireDelay(String field, Long seconds) {
    if (seconds != null && (seconds < 1 || seconds > Limits.MAX_TTL_SECONDS)) {
      throw new InvalidQuestionException(field + " must be between 1 and " + Limits.MAX_TTL_SECONDS);
    }
  }
}
