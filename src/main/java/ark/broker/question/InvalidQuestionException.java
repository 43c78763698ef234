package ark.broker.question;

/** The caller sent something that can never succeed as sent (HTTP 400, JSON-RPC -32602). */
public class InvalidQuestionException extends RuntimeException {
  public InvalidQuestionException(String message) {
    super(message, null, false, false);
  }
}
