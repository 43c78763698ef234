package ark.broker.traces;

import ark.broker.bus.ItemPage;
import ark.broker.bus.TraceStore;
import ark.broker.bus.TraceStore.SpanFilter;
import ark.broker.log.AgingView;
import ark.broker.log.KeyedItems;
import ark.broker.log.RetainedItems;
import ark.broker.log.Sequence;
import ark.broker.log.StoreMeters;
import com.fasterxml.jackson.core.io.JsonStringEncoder;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The view of the traces log: every span kept, in sequence order, grouped into traces (of all spans, and of each
 * session's) and indexed by session, bounded by age and bytes. One event loop only.
 */
final class TracesView implements AgingView<TraceRecord, List<StoredSpan>> {
  private final TraceSettings settings;
  private final StoreMeters meters;
  private final RetainedItems<StoredSpan> spans = new RetainedItems<>();
  private final KeyedItems<StoredSpan> bySession = new KeyedItems<>();
  private final TraceIndex traces = new TraceIndex();
  private final Map<String, TraceIndex> tracesOfSession = new HashMap<>();
  private long applied;

  TracesView(TraceSettings settings, StoreMeters meters) {
    this.settings = settings;
    this.meters = meters;
  }

  /** Applies one record of the log, at its position; returns the spans it kept. */
  @Override
  public List<StoredSpan> apply(long position, TraceRecord record, long now) {
    applied = Math.max(applied, position);
    List<StoredSpan> kept = List.of();
    if (record instanceof TraceRecord.Spans added) {
      kept = new ArrayList<>(added.spans().size());
      for (int i = 0; i < added.spans().size(); i++) {
        StoredSpan span = new StoredSpan(TraceStore.sequence(position, i), added.at(), added.spans().get(i));
        spans.add(span);
        traces.add(span);
        if (span.sessionId != null) {
          bySession.add(span.sessionId, span);
          tracesOfSession.computeIfAbsent(span.sessionId, session -> new TraceIndex()).add(span);
        }
        meters.appended();
        kept.add(span);
      }
    } else {
      spans.all().kept().forEach(span -> {
        spans.drop(span);
        forget(span);
      });
    }
    trim(now);
    return kept;
  }

  /** Drops what has aged out or grown beyond the bytes allowed. */
  @Override
  public void trim(long now) {
    spans.trim(now, settings.maxBytes(), settings.maxAgeMillis(), this::forget);
  }

  /** Up to where the traces log may forget: the records before the one of the oldest span kept. */
  @Override
  public long floor() {
    return spans.all().isEmpty() ? applied : TraceStore.positionOf(spans.all().first().position()) - 1;
  }

  int size() {
    return spans.size();
  }

  long bytes() {
    return spans.bytes();
  }

  ItemPage traces(String sessionId, Long before, int limit) {
    TraceIndex index = sessionId == null ? traces : tracesOfSession.get(sessionId);
    if (index == null) {
      return new ItemPage(List.of(), 0, false, before == null ? 0 : before);
    }
    List<Map.Entry<Long, String>> newest = index.newestBefore(before, limit);
    boolean more = newest.size() > limit;
    List<byte[]> items = new ArrayList<>(Math.min(limit, newest.size()));
    long last = before == null ? 0 : before;
    for (Map.Entry<Long, String> trace : more ? newest.subList(0, limit) : newest) {
      items.add(trace(trace.getValue(), index.spans(trace.getValue())));
      last = trace.getKey();
    }
    return new ItemPage(items, index.traces(), more, last);
  }

  ItemPage spans(SpanFilter filter, long cursor, int limit) {
    Sequence<StoredSpan> candidates;
    long total;
    if (filter.traceId() != null) {
      candidates = traces.spans(filter.traceId());
      total = traces.count(filter.traceId());
    } else if (filter.sessionId() != null) {
      candidates = bySession.of(filter.sessionId());
      total = bySession.count(filter.sessionId());
    } else {
      candidates = spans.all();
      total = spans.size();
    }
    return ItemPage.after(candidates, cursor, limit, total,
        span -> filter.sessionId() == null || filter.sessionId().equals(span.sessionId), span -> span.item);
  }

  /** {@code {"traceId":...,"spans":[...]}}, its kept spans in order. */
  private static byte[] trace(String traceId, Sequence<StoredSpan> spans) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 512 * spans.size());
    out.writeBytes("{\"traceId\":\"".getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(JsonStringEncoder.getInstance().quoteAsUTF8(traceId));
    out.writeBytes("\",\"spans\":[".getBytes(StandardCharsets.US_ASCII));
    boolean first = true;
    for (int i = 0; i < spans.size(); i++) {
      if (!spans.get(i).dropped()) {
        if (!first) {
          out.write(',');
        }
        first = false;
        out.writeBytes(spans.get(i).item);
      }
    }
    out.writeBytes("]}".getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  /** Takes a dropped span out of the indexes. */
  private void forget(StoredSpan span) {
    traces.dropped(span);
    if (span.sessionId != null) {
      bySession.dropped(span.sessionId);
      TraceIndex ofSession = tracesOfSession.get(span.sessionId);
      if (ofSession != null) {
        ofSession.dropped(span);
        if (ofSession.isEmpty()) {
          tracesOfSession.remove(span.sessionId);
        }
      }
    }
    meters.dropped();
  }
}
