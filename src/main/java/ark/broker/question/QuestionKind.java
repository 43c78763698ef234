package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/**
 * What sort of answer a question wants: an answer (free text, one of its options, or a form its responseSchema
 * describes), or a decision to approve or reject, with a reason.
 */
public enum QuestionKind {
  QUESTION, APPROVAL;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static QuestionKind parse(String value) {
    for (QuestionKind kind : values()) {
      if (kind.wireName().equals(value)) {
        return kind;
      }
    }
    throw new InvalidQuestionException("kind must be question or approval, not '" + value + "'");
  }
}
