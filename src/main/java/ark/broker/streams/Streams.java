package ark.broker.streams;

import ark.broker.bus.ItemPage;
import ark.broker.bus.StreamStore.StreamState;
import ark.broker.log.RetainedItems;
import ark.broker.log.Sequence;
import ark.broker.wire.ItemWriter;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The view of the streams log: every chunk kept, in sequence order, each Query's stream with its chunks, whether it
 * was completed, and which requests are still posting to it. Bounded by the settings' age and bytes. One event loop
 * only.
 */
final class Streams {
  private final StreamSettings settings;
  private final RetainedItems<StoredChunk> retained = new RetainedItems<>();
  private final Map<String, QueryStream> byQuery = new HashMap<>();

  /** One Query's stream. */
  static final class QueryStream {
    final Sequence<StoredChunk> chunks = new Sequence<>();
    /** Requests posting to it, with when each last posted (the writer's clock). */
    final Map<String, Long> posting = new HashMap<>();
    int kept;
    boolean completed;
    boolean errored;
    boolean ended;

    boolean due() {
      return errored || completed && posting.isEmpty();
    }
  }

  /** What applying a record did that readers must hear of: the chunk kept, and whether the stream ended. */
  record Applied(StoredChunk kept, boolean ended) {
    static final Applied NOTHING = new Applied(null, false);
  }

  Streams(StreamSettings settings) {
    this.settings = settings;
  }

  Applied apply(long position, StreamRecord record, long now) {
    Applied applied = Applied.NOTHING;
    if (record instanceof StreamRecord.Chunk chunk) {
      QueryStream stream = byQuery.computeIfAbsent(chunk.queryId(), id -> new QueryStream());
      StoredChunk kept = keep(stream, new StoredChunk(position, chunk.queryId(), chunk.at(),
          chunk.at() + settings.maxAgeMillis(), chunk.chunk(), chunk.error(), false));
      if (chunk.producerId() != null) {
        stream.posting.computeIfPresent(chunk.producerId(), (producer, last) -> chunk.at());
      }
      stream.errored |= chunk.error();
      applied = new Applied(kept, endIfDue(stream));
    } else if (record instanceof StreamRecord.Opened opened) {
      QueryStream stream = byQuery.computeIfAbsent(opened.queryId(), id -> new QueryStream());
      if (!stream.completed) {
        stream.posting.put(opened.producerId(), opened.at());
      }
    } else if (record instanceof StreamRecord.Closed closed) {
      QueryStream stream = byQuery.get(closed.queryId());
      if (stream != null && stream.posting.remove(closed.producerId()) != null) {
        applied = new Applied(null, endIfDue(stream));
      }
    } else if (record instanceof StreamRecord.Completed completed) {
      QueryStream stream = byQuery.get(completed.queryId());
      if (stream != null && !stream.completed) {
        stream.completed = true;
        StoredChunk kept = keep(stream, new StoredChunk(position, completed.queryId(), completed.at(),
            completed.at() + settings.maxAgeMillis(), StoredChunk.DONE, false, true));
        applied = new Applied(kept, endIfDue(stream));
      }
    } else {
      List<StoredChunk> all = new ArrayList<>(retained.all().size());
      for (int i = 0; i < retained.all().size(); i++) {
        all.add(retained.all().get(i));
      }
      all.forEach(retained::drop);
      byQuery.clear();
    }
    trim(now);
    return applied;
  }

  /** Drops what has aged out or grown beyond the bytes allowed. */
  void trim(long now) {
    retained.trim(now, settings.maxBytes(), settings.maxAgeMillis(), this::forget);
  }

  /**
   * Counts requests silent for longer than the settings allow as ended; returns the Queries whose streams ended for
   * it, whose readers the caller must tell. Walks every stream, so it runs on a timer, not for each record.
   */
  List<String> endSilentPosters(long now) {
    List<String> ended = new ArrayList<>();
    byQuery.forEach((query, stream) -> {
      if (stream.posting.values().removeIf(last -> now - last > settings.producerIdleMillis()) && endIfDue(stream)) {
        ended.add(query);
      }
    });
    return ended;
  }

  long floor() {
    return retained.floor();
  }

  int size() {
    return retained.size();
  }

  long bytes() {
    return retained.bytes();
  }

  /** Whether a chunk was ever posted to the Query's stream (and is kept), and whether it was completed. */
  QueryStream stream(String queryId) {
    return byQuery.get(queryId);
  }

  /** The stream as a reader starting now sees it; its chunks stop after an error chunk, as readers do. */
  StreamState state(String queryId, boolean fromBeginning, long through) {
    QueryStream stream = byQuery.get(queryId);
    if (stream == null) {
      return new StreamState(false, List.of(), false, through);
    }
    List<byte[]> chunks = new ArrayList<>();
    if (fromBeginning) {
      for (int i = 0; i < stream.chunks.size(); i++) {
        StoredChunk chunk = stream.chunks.get(i);
        if (chunk.dropped() || chunk.completion) {
          continue;
        }
        chunks.add(chunk.chunk);
        if (chunk.error) {
          break;
        }
      }
    }
    return new StreamState(true, chunks, stream.ended, through);
  }

  /** {@code {"sequenceNumber","timestamp","data":{"queryId","chunk","complete"?}}} of every kept chunk after the cursor. */
  ItemPage firehose(long cursor, int limit) {
    Sequence<StoredChunk> all = retained.all();
    List<byte[]> items = new ArrayList<>(Math.min(limit, 256));
    long last = cursor;
    for (int i = all.firstAfter(cursor); i < all.size(); i++) {
      StoredChunk chunk = all.get(i);
      if (chunk.dropped()) {
        continue;
      }
      if (items.size() == limit) {
        return new ItemPage(items, retained.size(), true, last);
      }
      ItemWriter data = ItemWriter.object(chunk.chunk.length + 64).text("queryId", chunk.queryId)
          .json("chunk", chunk.completion ? StoredChunk.DONE : chunk.chunk);
      if (chunk.completion) {
        data.json("complete", "true".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      }
      items.add(ItemWriter.object(chunk.chunk.length + 128).number("sequenceNumber", chunk.position())
          .timestamp("timestamp", chunk.appendedAt()).json("data", data.end()).end());
      last = chunk.position();
    }
    return new ItemPage(items, retained.size(), false, last);
  }

  private StoredChunk keep(QueryStream stream, StoredChunk chunk) {
    retained.add(chunk);
    stream.chunks.add(chunk);
    stream.kept++;
    return chunk;
  }

  /** Whether the stream ended just now: completed with no request posting, or errored. */
  private static boolean endIfDue(QueryStream stream) {
    if (stream.ended || !stream.due()) {
      return false;
    }
    stream.ended = true;
    return true;
  }

  private void forget(StoredChunk chunk) {
    QueryStream stream = byQuery.get(chunk.queryId);
    if (stream == null) {
      return;
    }
    stream.chunks.droppedOne();
    if (--stream.kept == 0 && stream.posting.isEmpty()) {
      byQuery.remove(chunk.queryId);
    }
  }
}
