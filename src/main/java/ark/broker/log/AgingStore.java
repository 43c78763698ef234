package ark.broker.log;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A store whose items leave by age and by bytes, kept from its log: every record is applied to the view, what it
 * kept is handed on while the store is live (replayed records are not news), the log forgets everything older
 * than the oldest item kept, and what has aged out leaves every second even when nothing is written, and before
 * every read. Reads catch up with the log first, so they see what another replica acknowledged. Used from the
 * owning verticle's event loop only.
 *
 * @param <R> the records of the log
 * @param <K> what applying a record kept
 */
public final class AgingStore<R, K> {
  /** How often what has aged out leaves, when nothing is written. */
  private static final long TRIM_MILLIS = 1000;

  private final Vertx vertx;
  private final Clock clock;
  private final AgingView<R, K> view;
  private final LogBackedView<R, Long> records;

  /**
   * @param snapshotEveryRecords records between two snapshots, after which the log forgets what aged out
   * @param readBackTimeoutMillis how long a write waits to read its own record back from a shared log
   */
  public AgingStore(Vertx vertx, EventLog log, String name, RecordCodec<R> codec, long snapshotEveryRecords,
                    long readBackTimeoutMillis, Clock clock, MeterRegistry meters, AgingView<R, K> view) {
    this.vertx = vertx;
    this.clock = clock;
    this.view = view;
    this.records = new LogBackedView<>(vertx, log, name, codec, record -> false, snapshotEveryRecords,
        readBackTimeoutMillis, meters);
  }

  /** Replays the log into the view; then hands on what each new record kept, and trims every second. */
  public Future<Void> open(Consumer<K> kept) {
    return records.open(new LogBackedView.Updates<>() {
      @Override
      public Long apply(long position, R record) {
        K applied = view.apply(position, record, clock.millis());
        if (applied != null && records.isLive()) {
          kept.accept(applied);
        }
        return position;
      }

      @Override
      public LogBackedView.Snapshot<R> snapshot(long position) {
        return new LogBackedView.Snapshot<>(view.floor(), List.of());
      }
    }).map(replayed -> {
      vertx.setPeriodic(TRIM_MILLIS, tick -> view.trim(clock.millis()));
      return null;
    });
  }

  /** Appends a record; answered with its position once it is durable and applied here. */
  public Future<Long> append(String key, R record) {
    return records.append(key, record);
  }

  /** {@code reading} of the view once it has caught up with the log and dropped what has aged out. */
  public <T> Future<T> read(Supplier<T> reading) {
    return records.afterCatchUp(() -> {
      view.trim(clock.millis());
      return reading.get();
    });
  }

  /** Catches up with the log: what another replica acknowledged before now is applied here once this completes. */
  public Future<Void> catchUp() {
    return records.catchUp();
  }

  /** The position of the last record applied here. */
  public long position() {
    return records.position();
  }

  public Future<Void> close() {
    return records.close();
  }
}
