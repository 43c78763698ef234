package ark.broker.log;

import ark.broker.log.EventLog.RecordSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.Supplier;

/**
 * Enforces {@link EventLog}'s policy for a record that cannot be decoded or applied: it is skipped
 * with one ERROR line, and the log goes on. Every replica runs the same code on the same records, so
 * every replica skips it alike and their views stay equal; refusing instead would stop every replica at
 * once on the same record. Each log wraps its sink in this once, so no log can forget the policy.
 */
final class SkippingSink implements RecordSink<Object> {
  private static final Logger LOG = LoggerFactory.getLogger(SkippingSink.class);
  private static final Object UNREADABLE = new Object();

  private final String log;
  private final RecordSink<Object> sink;

  @SuppressWarnings("unchecked")
  SkippingSink(String log, RecordSink<?> sink) {
    this.log = log;
    this.sink = (RecordSink<Object>) sink;
  }

  @Override
  public Object decode(long position, String key, byte[] payload) {
    return readable(position, () -> sink.decode(position, key, payload));
  }

  @Override
  public Object decodeTombstone(long position, String key) {
    return readable(position, () -> sink.decodeTombstone(position, key));
  }

  @Override
  public void apply(long position, Object record) {
    if (record == UNREADABLE) {
      return;
    }
    try {
      sink.apply(position, record);
    } catch (RuntimeException e) {
      skipped(position, e);
    }
  }

  private Object readable(long position, Supplier<Object> decoding) {
    try {
      return decoding.get();
    } catch (RuntimeException e) {
      return skipped(position, e);
    }
  }

  private Object skipped(long position, RuntimeException e) {
    LOG.error("{}: the record at position {} cannot be applied; skipped ({})", log, position, e.toString());
    return UNREADABLE;
  }
}
