package ark.broker.bus;

import ark.broker.question.EventType;
import ark.broker.question.Question;
import io.vertx.core.buffer.Buffer;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The values sent over the event bus besides the services' arguments. All immutable, so they pass by reference. */
public final class Messages {
  private Messages() {
  }

  /** @param created false when the request named a question that already existed (idempotent replay) */
  public record Created(Question question, boolean created) {
  }

  /**
   * A page of history.
   *
   * @param changes the changes on the page the actor may see
   * @param through the position of the page's last change, seen or not: where the next page starts
   * @param more    whether the page was full, so more may follow
   */
  public record Changes(List<QuestionChange> changes, long through, boolean more) {
  }

  /** One applied change; {@code question.resourceVersion()} is its position in the log. */
  public record QuestionChange(EventType type, Question question) {
    public long position() {
      return question.resourceVersion();
    }
  }

  /**
   * The store answers only once it has replayed its log, so an answer means ready, unless its logs cannot
   * take writes now.
   *
   * @param unwritable null while the question and session logs take writes; else why one does not (a full
   *                   or failing disk), and the broker is not ready until it does again
   */
  public record StoreStatus(long position, int questions, String unwritable) {
  }

  /**
   * An MCP session as the MCP surface wrote it. The store keeps it without reading it.
   *
   * @param document the session as JSON text, or null when the session ended
   */
  public record SessionRecord(String id, String document) {
  }

  /**
   * Whether this process is the worker: the one replica that does once-only work (expiry, Query status,
   * channel delivery). That work is level-triggered from the view, so a new worker finishes what the
   * last one left.
   */
  public record WorkerStatus(boolean active) {
  }

  /**
   * A request a channel's service sent to {@code POST /channels/{channel}/events} (or a person's browser to
   * {@code /channels/{channel}/answer}), passed on untouched so the channel room can check its signature over the
   * exact bytes.
   *
   * @param method the HTTP method, {@code GET} or {@code POST}
   * @param query the raw query string, or null
   * @param headers the request's headers, names in lower case (the first value of each)
   */
  public record InboundRequest(String channel, String method, String query, Map<String, String> headers, Buffer body) {
    public InboundRequest {
      headers = Map.copyOf(headers);
    }

    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  /** What to answer the channel's service. */
  public record InboundResponse(int status, String contentType, Buffer body) {
  }

  /** @param graceMillis how long requests still running when the surfaces stop serving may take to finish */
  public record Draining(long graceMillis) {
  }

  /**
   * A message conversation memory kept, for its watchers.
   *
   * @param item the item as every reader gets it, {@code {"timestamp",...,"sequence"}}
   */
  public record MemoryAppended(long sequence, String conversationId, byte[] item) implements SequencedItem {
  }

  /**
   * A chunk of a Query's stream, or its completion, once durable.
   *
   * @param item the chunk as posted, or {@code "[DONE]"} (a JSON string) for a completion
   * @param error whether the chunk reports the Query's failure ({@code {"error":{"message","type"}}}): it ends
   *     the stream for its readers
   */
  public record StreamChunk(long sequence, String queryId, byte[] item, boolean error, boolean completion)
      implements SequencedItem {
  }

  /** A Query's stream ended for its readers, at {@code sequence}. */
  public record StreamEnded(long sequence, String queryId) {
  }

  /**
   * An event the events store kept, for its watchers.
   *
   * @param queryId its Query's UID
   * @param sessionId its {@code data.sessionId}, or null
   * @param item the event as every reader gets it, its {@code sequence} last
   */
  public record EventAppended(long sequence, String queryId, String sessionId, byte[] item) implements SequencedItem {
  }

  /**
   * A span the traces store kept, for its watchers.
   *
   * @param sessionId its {@code ark.session.id} attribute, or null
   * @param item the span as every reader gets it, its {@code sequence} last
   */
  public record SpanAppended(long sequence, String traceId, String sessionId, byte[] item) implements SequencedItem {
  }

  /**
   * A session of Ark's sessions projection changed, for its watchers.
   *
   * @param sequence the events log's sequence of the fact that changed it: where a watch resumes
   * @param item {@code {"sessionId","session","sequence"}}, as every watcher gets it
   */
  public record QuerySessionChanged(long sequence, String sessionId, byte[] item) implements SequencedItem {
  }
}
