package ark.broker.log;

/**
 * How the property tests drive a store whose view is an {@link AgingView}: applying, trimming and the floor are the
 * view's own.
 *
 * @param <R> the records of the store's log
 * @param <V> the store's view
 */
public interface AgingRetainingStore<R, V extends AgingView<R, ?>> extends RetainingStore<R, V> {
  @Override
  default void apply(V view, long position, R record, long now) {
    view.apply(position, record, now);
  }

  @Override
  default void trim(V view, long now) {
    view.trim(now);
  }

  @Override
  default long floor(V view) {
    return view.floor();
  }
}
