package ark.broker.streams;

import ark.broker.bus.ItemPage;
import ark.broker.bus.StreamStore.StreamState;
import ark.broker.log.AgingView;
import ark.broker.log.RetainedItems;
import ark.broker.log.Sequence;
import ark.broker.log.StoreMeters;
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
final class Streams implements AgingView<StreamRecord, Streams.Applied> {
  private final StreamSettings settings;
  private final StoreMeters meters;
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

  /**
   * What applying the record at {@code position} did that readers must hear of: the chunk kept, and the Query whose
   * stream it ended (null for none).
   */
  record Applied(long position, StoredChunk kept, String endedQuery) {
    static final Applied NOTHING = new Applied(0, null, null);

    boolean ended() {
      return endedQuery != null;
    }
  }

  Streams(StreamSettings settings, StoreMeters meters) {
    this.settings = settings;
    this.meters = meters;
  }

  @Override
  public Applied apply(long position, StreamRecord record, long now) {
    Applied applied = Applied.NOTHING;
    if (record instanceof StreamRecord.Chunk chunk) {
      QueryStream stream = byQuery.computeIfAbsent(chunk.queryId(), id -> new QueryStream());
      StoredChunk kept = keep(stream, new StoredChunk(position, chunk.queryId(), chunk.at(),
          chunk.at() + settings.maxAgeMillis(), chunk.chunk(), chunk.error(), false));
      if (chunk.producerId() != null) {
        stream.posting.computeIfPresent(chunk.producerId(), (producer, last) -> chunk.at());
      }
      stream.errored |= chunk.error();
      applied = ended(position, kept, chunk.queryId(), stream);
    } else if (record instanceof StreamRecord.Opened opened) {
      QueryStream stream = byQuery.computeIfAbsent(opened.queryId(), id -> new QueryStream());
      if (!stream.completed) {
        stream.posting.put(opened.producerId(), opened.at());
      }
    } else if (record instanceof StreamRecord.Closed closed) {
      QueryStream stream = byQuery.get(closed.queryId());
      if (stream != null && stream.posting.remove(closed.producerId()) != null) {
        applied = ended(position, null, closed.queryId(), stream);
      }
    } else if (record instanceof StreamRecord.Completed completed) {
      QueryStream stream = byQuery.get(completed.queryId());
      if (stream != null && !stream.completed) {
        stream.completed = true;
        StoredChunk kept = keep(stream, new StoredChunk(position, completed.queryId(), completed.at(),
            completed.at() + settings.maxAgeMillis(), StoredChunk.DONE, false, true));
        applied = ended(position, kept, completed.queryId(), stream);
      }
    } else {
      retained.dropAll(retained.all(), chunk -> true, chunk -> meters.dropped());
      byQuery.clear();
    }
    trim(now);
    return applied;
  }

  /** Drops what has aged out or grown beyond the bytes allowed. */
  @Override
  public void trim(long now) {
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

  @Override
  public long floor() {
    return retained.floor();
  }

  int size() {
    return retained.size();
  }

  long bytes() {
    return retained.bytes();
  }

  /** The Query's stream: its chunks, whether it was completed, who posts to it; null if nothing was posted to it. */
  QueryStream stream(String queryId) {
    return byQuery.get(queryId);
  }

  /**
   * Whether a chunk (or the completion) of the Query's stream is kept: a request that only announced it posts for long
   * has not posted yet.
   */
  boolean hasChunks(String queryId) {
    QueryStream stream = byQuery.get(queryId);
    return stream != null && stream.kept > 0;
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
    meters.appended();
    stream.chunks.add(chunk);
    stream.kept++;
    return chunk;
  }

  private static Applied ended(long position, StoredChunk kept, String queryId, QueryStream stream) {
    return new Applied(position, kept, endIfDue(stream) ? queryId : null);
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
    meters.dropped();
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
