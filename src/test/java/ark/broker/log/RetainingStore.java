package ark.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * How the property tests drive one store's view: the records that write, delete and purge, and what its reads show.
 * Each store's test supplies one; {@link RetentionCheck} does the rest.
 *
 * @param <R> the records of the store's log
 * @param <V> the store's view
 */
public interface RetainingStore<R, V> {
  /** A fresh view keeping at most {@code maxBytes}, each item at most {@code maxAgeMillis}. */
  V view(long maxBytes, long maxAgeMillis);

  void apply(V view, long position, R record, long now);

  void trim(V view, long now);

  /** Up to where the log may forget; 0 for a view whose log is another store's (it forgets nothing here). */
  long floor(V view);

  long bytes(V view);

  /** The record as the log hands it back: encoded and decoded with the store's codec. */
  R readBack(R record);

  /**
   * The record writing an item labelled {@code label} (the reads show the label) under {@code key} and {@code group},
   * {@code padding} bytes heavier than an empty one, at {@code at}, visible until {@code expiresAt} (or
   * {@link Long#MAX_VALUE}) if the store lets a writer choose.
   */
  R written(String label, String key, String group, int padding, long at, long expiresAt);

  /** What the model keeps of {@code written} once the log put it at {@code position}. */
  RetentionModel.Item kept(long position, R written);

  /** The record deleting every item of {@code key}; only asked of a store that deletes by key. */
  default R deleted(String key, long at) {
    throw new UnsupportedOperationException("this store deletes no single key");
  }

  /** The record that deletes every item of {@code group} under {@code key}. */
  default R deletedGroup(String key, String group, long at) {
    throw new UnsupportedOperationException("this store deletes no single group");
  }

  R purged(long at);

  /** What the view's reads show of its items, of one key or (null) of all, and the total the reads announce. */
  Shown shown(V view, String key);

  /** What the view's reads show of the items of one group, through its index; null for a store without one. */
  default Shown shownOfGroup(V view, String group) {
    return null;
  }

  /** What the reads should show of the live items of the model, in log order. */
  default Shown expected(List<RetentionModel.Item> live, String key) {
    return Shown.of(live.stream().filter(item -> key == null || key.equals(item.key())).toList());
  }

  record Shown(List<String> items, long total) {
    /** The labels of {@code items}, and as many as the total. */
    static Shown of(List<RetentionModel.Item> items) {
      return new Shown(items.stream().map(RetentionModel.Item::label).toList(), items.size());
    }
  }

  /** {@code record} encoded and decoded again with {@code codec}, as a log hands it back. */
  static <R> R throughCodec(RecordCodec<R> codec, R record) {
    try {
      return codec.decode(codec.encode(record));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
