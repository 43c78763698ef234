package ark.broker.log;

/** The log cannot take writes now (disk failure, broker unreachable); nothing was written. */
public class LogUnavailableException extends RuntimeException {
  public LogUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
