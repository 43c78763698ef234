package ark.broker.log;

/**
 * The log cannot take writes now (disk failure, Kafka unreachable), or could not confirm one in time.
 * The embedded log then wrote nothing; with Kafka the record may still appear, whole (see
 * {@link KafkaEventLog}).
 */
public class LogUnavailableException extends RuntimeException {
  public LogUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
