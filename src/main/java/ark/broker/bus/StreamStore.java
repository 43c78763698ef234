package ark.broker.bus;

import ark.broker.auth.Actor;
import io.vertx.core.Future;

import java.util.List;

/**
 * LLM streams, as Ark's executors post them and ark-api and the dashboard read them (the {@code /stream} routes of
 * Ark's broker): the chunks of each Query's answer in the order they were posted, and its completion. A stream ends
 * for its readers once it is completed and every request that was posting to it when it was completed has ended,
 * so a completion that overtakes the tail of a long post (it is a separate request, possibly to another replica)
 * ends no reader early. Served over the bus at {@link Addresses#STREAM_STORE}; chunks and completions are published
 * on {@link Addresses#STREAM_CHUNKS}, ends on {@link Addresses#STREAM_ENDED}.
 */
public interface StreamStore {
  /**
   * The request {@code producerId} starts posting chunks to the Query's stream and may go on for long: until it
   * {@link #close}s, or stays silent for the configured time, the stream does not end.
   */
  Future<Void> open(Actor actor, String queryId, String producerId);

  /**
   * Appends chunks, each compact JSON, in their order; completes once all are durable and applied here.
   *
   * @param producerId the request's id from {@link #open}, or null for a request that posted all it had at once
   */
  Future<Void> append(Actor actor, String queryId, String producerId, List<byte[]> chunks);

  /** The request {@code producerId} posts no more. */
  Future<Void> close(Actor actor, String queryId, String producerId);

  /** Completes the Query's stream. */
  Future<Completion> complete(Actor actor, String queryId);

  /**
   * The Query's stream as it stands: its chunks if {@code fromBeginning}, whether it has ended, and the sequence up to
   * which this is true, so a reader takes live chunks and ends from there.
   */
  Future<StreamState> read(Actor actor, String queryId, boolean fromBeginning);

  /** Chunks and completions of every Query after {@code cursor}, as the firehose lists them. */
  Future<ItemPage> firehose(Actor actor, long cursor, int limit);

  /** Forgets every stream; sequences go on where they were. */
  Future<Void> purge(Actor actor);

  enum Completion { COMPLETED, ALREADY_COMPLETED, NOT_FOUND }

  /**
   * @param exists whether any chunk was ever posted to the stream (and is still kept)
   * @param chunks its chunks, in order, when read from the beginning; else none
   * @param ended whether readers get {@code [DONE]}: completed with no request posting, or ended by an error chunk
   * @param through the sequence this state holds up to: live items after it are news
   */
  record StreamState(boolean exists, List<byte[]> chunks, boolean ended, long through) {
    public StreamState {
      chunks = List.copyOf(chunks);
    }
  }
}
