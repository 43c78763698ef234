package ark.broker.traces;

import ark.broker.bus.TraceStore.NewSpan;
import ark.broker.log.RetainedItems;
import ark.broker.wire.ItemWriter;

/** A span as the traces store keeps it: its trace and session, and the item every read writes out. */
final class StoredSpan extends RetainedItems.Item {
  final String traceId;
  final String sessionId;
  /** The span as upstream renders it, its {@code sequence} last. */
  final byte[] item;

  StoredSpan(long sequence, long appendedAt, NewSpan span) {
    this(sequence, appendedAt, span, ItemWriter.withNumber(span.span(), "sequence", sequence));
  }

  private StoredSpan(long sequence, long appendedAt, NewSpan span, byte[] item) {
    super(sequence, appendedAt, Long.MAX_VALUE, item.length);
    this.traceId = span.traceId();
    this.sessionId = span.sessionId();
    this.item = item;
  }
}
