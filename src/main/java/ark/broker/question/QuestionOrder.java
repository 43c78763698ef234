package ark.broker.question;

/** Which end of the creation order a list starts from. */
public enum QuestionOrder {
  OLDEST_FIRST("oldest"), NEWEST_FIRST("newest");

  private final String wireName;

  QuestionOrder(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public static QuestionOrder parse(String value) {
    for (QuestionOrder order : values()) {
      if (order.wireName.equals(value)) {
        return order;
      }
    }
    throw new InvalidQuestionException("order must be oldest or newest, not '" + value + "'");
  }
}
