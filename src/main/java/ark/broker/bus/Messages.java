package ark.broker.bus;

import ark.broker.auth.Actor;
import ark.broker.auth.Principal;
import ark.broker.question.Delivery;
import ark.broker.question.EventType;
import ark.broker.question.NewQuestion;
import ark.broker.question.Question;
import ark.broker.question.QuestionFilter;
import ark.broker.question.QuestionOrder;
import ark.broker.question.Reply;
import io.vertx.core.buffer.Buffer;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bodies sent over the event bus. All immutable, so they pass between verticles by reference. Every request
 * to the store names its {@link Actor}: the store decides what that actor may see and do.
 */
public final class Messages {
  private Messages() {
  }

  public record CreateQuestion(Actor actor, NewQuestion request) {
  }

  /** @param created false when the request named a question that already existed (idempotent replay) */
  public record Created(Question question, boolean created) {
  }

  public record AnswerQuestion(Actor actor, String id, Reply reply, String answeredBy) {
  }

  /** @param reason why it is withdrawn or declined, for its history; or null */
  public record CancelQuestion(Actor actor, String id, String reason) {
  }

  public record GetQuestion(Actor actor, String id) {
  }

  public record ListQuestions(Actor actor, QuestionFilter filter, QuestionOrder order, int limit, String continueToken) {
  }

  /** The first {@code limit} changes the actor may see after position {@code after}, in order; fails with GONE when they are no longer retained. */
  public record ChangesSince(Actor actor, long after, int limit) {
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
   * A session that {@code initialize} just started: it counts against the limit of sessions in total and against
   * its owner's budget of sessions.
   *
   * @param owner the principal that initialized it
   */
  public record StartSession(Principal owner, String id, String document) {
  }

  public record GetSession(String id) {
  }

  public record DeleteSession(String id) {
  }

  /** Records that a channel showed a question to people; the same channel and ref replace the earlier record. */
  public record RecordDelivery(Actor actor, String id, Delivery delivery) {
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
}
