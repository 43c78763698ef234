package ark.broker.streams;

import ark.broker.log.RetainedItems;

import java.nio.charset.StandardCharsets;

/** A chunk (or a completion) as the streams view keeps it: its Query, and the chunk as readers get it. */
final class StoredChunk extends RetainedItems.Item {
  /** What the firehose shows for a completion, and its watch sends. */
  static final byte[] DONE = "\"[DONE]\"".getBytes(StandardCharsets.US_ASCII);

  final String queryId;
  final byte[] chunk;
  final boolean error;
  final boolean completion;

  StoredChunk(long sequence, String queryId, long at, long expiresAt, byte[] chunk, boolean error, boolean completion) {
    super(sequence, at, expiresAt, chunk.length + queryId.length());
    this.queryId = queryId;
    this.chunk = chunk;
    this.error = error;
    this.completion = completion;
  }
}
