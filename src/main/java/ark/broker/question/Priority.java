package ark.broker.question;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/** How urgently the asker needs the answer; channels and dashboards order and highlight by it. */
public enum Priority {
  HIGH, MEDIUM, LOW;

  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Priority parse(String value) {
    for (Priority priority : values()) {
      if (priority.wireName().equals(value)) {
        return priority;
      }
    }
    throw new InvalidQuestionException("priority must be one of high, medium, low, not '" + value + "'");
  }
}
