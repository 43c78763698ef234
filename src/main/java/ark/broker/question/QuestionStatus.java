package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Where a question is in its life. Only {@link #PENDING} can change; the other three are final. */
public enum QuestionStatus {
  PENDING, ANSWERED, CANCELLED, EXPIRED;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public boolean isFinal() {
    return this != PENDING;
  }

  public static QuestionStatus parse(String value) {
    for (QuestionStatus status : values()) {
      if (status.wireName().equals(value)) {
        return status;
      }
    }
    throw new InvalidQuestionException("status must be one of " + allowed() + ", not '" + value + "'");
  }

  static String allowed() {
    return Arrays.stream(values()).map(QuestionStatus::wireName).collect(Collectors.joining(", "));
  }
}
