package ark.broker.log;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.function.ToDoubleFunction;

/**
 * What one store of Ark's broker keeps, has taken in and has let go, at /metrics, each series tagged with the store:
 * {@code ark_broker_store_items}, {@code ark_broker_store_bytes}, {@code ark_broker_store_appended_total} and
 * {@code ark_broker_store_dropped_total} (by age, bytes, expiry or deletion).
 */
public final class StoreMeters {
  private final Counter appended;
  private final Counter dropped;

  /**
   * @param store the store's name ("events", "traces", "sessions")
   * @param state what the gauges read
   * @param items how many items the store keeps
   * @param bytes how many bytes they take, about
   */
  public <S> StoreMeters(MeterRegistry meters, String store, S state, ToDoubleFunction<S> items,
                         ToDoubleFunction<S> bytes) {
    Gauge.builder("ark_broker_store_items", state, items).tag("store", store)
        .description("Items a store of Ark's broker keeps").register(meters);
    Gauge.builder("ark_broker_store_bytes", state, bytes).tag("store", store)
        .description("Bytes of the items a store of Ark's broker keeps, about").register(meters);
    appended = Counter.builder("ark_broker_store_appended").tag("store", store)
        .description("Items a store of Ark's broker has kept since the start, replayed ones included").register(meters);
    dropped = Counter.builder("ark_broker_store_dropped").tag("store", store)
        .description("Items a store of Ark's broker has let go since the start: aged, beyond its bytes, expired or"
            + " deleted").register(meters);
  }

  public void appended() {
    appended.increment();
  }

  public void dropped() {
    dropped.increment();
  }
}
