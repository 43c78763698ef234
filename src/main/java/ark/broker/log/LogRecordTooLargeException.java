package ark.broker.log;

/**
 * The log refused a record for its size (a Kafka topic takes records up to {@code kafka.maxRecordBytes} and its own
 * {@code max.message.bytes}). Nothing was written, and the log takes other writes as before: the request was too
 * large, the log is not unavailable.
 */
public class LogRecordTooLargeException extends RuntimeException {
  public LogRecordTooLargeException(String message, Throwable cause) {
    super(message, cause);
  }
}
