package ark.broker.question;

/** The request was valid but the question is no longer in a state that allows it (HTTP 409). */
public class QuestionConflictException extends RuntimeException {
  public QuestionConflictException(String message) {
    super(message, null, false, false);
  }
}
