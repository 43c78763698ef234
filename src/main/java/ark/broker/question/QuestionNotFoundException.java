package ark.broker.question;

/** No question has this id (HTTP 404). */
public class QuestionNotFoundException extends RuntimeException {
  public QuestionNotFoundException(String id) {
    super("question " + id + " not found", null, false, false);
  }
}
