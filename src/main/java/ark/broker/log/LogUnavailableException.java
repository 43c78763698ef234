package ark.broker.log;

/**
 * The log cannot take writes now (disk full or failing, Kafka unreachable), or could not confirm one in
 * time. The embedded log then wrote nothing, unless its message says the outcome is unknown (the disk
 * failed even cutting the write off again; see {@link FileEventLog}); with Kafka the record may still
 * appear, whole (see {@link KafkaEventLog}).
 */
public class LogUnavailableException extends RuntimeException {
  public LogUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
