package ark.broker.traces;

import ark.broker.log.KeyedItems;
import ark.broker.log.Sequence;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Spans grouped into traces, the traces ordered by the sequence of their first kept span, as upstream lists them
 * (newest first): of every span, or of one session's. One event loop only.
 */
final class TraceIndex {
  private final KeyedItems<StoredSpan> byTrace = new KeyedItems<>();
  /** The first kept span's sequence of each trace, and the other way round. */
  private final TreeMap<Long, String> byFirst = new TreeMap<>();
  private final Map<String, Long> firstOf = new HashMap<>();

  void add(StoredSpan span) {
    byTrace.add(span.traceId, span);
    if (firstOf.putIfAbsent(span.traceId, span.position()) == null) {
      byFirst.put(span.position(), span.traceId);
    }
  }

  /** A span of this index was dropped. */
  void dropped(StoredSpan span) {
    byTrace.dropped(span.traceId);
    Long first = firstOf.get(span.traceId);
    if (first != null && first == span.position()) {
      byFirst.remove(first);
      StoredSpan next = byTrace.first(span.traceId);
      if (next == null) {
        firstOf.remove(span.traceId);
      } else {
        firstOf.put(span.traceId, next.position());
        byFirst.put(next.position(), span.traceId);
      }
    }
  }

  boolean isEmpty() {
    return firstOf.isEmpty();
  }

  int traces() {
    return firstOf.size();
  }

  Sequence<StoredSpan> spans(String traceId) {
    return byTrace.of(traceId);
  }

  long count(String traceId) {
    return byTrace.count(traceId);
  }

  /** Up to {@code limit} + 1 traces whose first span is before {@code before} (null: any), newest first. */
  List<Map.Entry<Long, String>> newestBefore(Long before, int limit) {
    NavigableMap<Long, String> candidates = (before == null ? byFirst : byFirst.headMap(before, false)).descendingMap();
    List<Map.Entry<Long, String>> page = new ArrayList<>(Math.min(limit + 1, 256));
    for (Map.Entry<Long, String> trace : candidates.entrySet()) {
      if (page.size() > limit) {
        break;
      }
      page.add(trace);
    }
    return page;
  }
}
