package ark.broker.log;

/**
 * The state of a store whose items leave by age and by bytes (Ark's memory, streams, events, traces), kept by an
 * {@link AgingStore} from its log.
 *
 * @param <R> the records of the log
 * @param <K> what applying a record kept, which the store publishes while it is live (null for nothing)
 */
public interface AgingView<R, K> {
  /** Applies one record of the log, at its position, at {@code now}; returns what it kept. */
  K apply(long position, R record, long now);

  /** Drops what has aged out or grown beyond the bytes allowed. */
  void trim(long now);

  /** Up to where the log may forget: just before the oldest item kept. */
  long floor();
}
