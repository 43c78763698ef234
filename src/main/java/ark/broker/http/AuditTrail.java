package ark.broker.http;

import ark.broker.bus.Messages.Changes;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.question.QuestionAction;
import ark.broker.question.QuestionPage;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * Writes the audit trail as NDJSON, a page from the store at a time and only as fast as the client reads: the changes
 * ({@link #changes}), or the removed questions it keeps ({@link #removedQuestions}).
 *
 * @param <P> a page of it
 */
final class AuditTrail<P> {
  private final HttpServerResponse response;
  private final Function<P, Buffer> lines;
  /** The page after this one, or null when it was the last. */
  private final Function<P, Future<P>> next;

  private AuditTrail(HttpServerResponse response, Function<P, Buffer> lines, Function<P, Future<P>> next) {
    this.response = response;
    this.lines = lines;
    this.next = next;
  }

  /** Each line one change ({@code resourceVersion}, {@code type}, {@code question}, {@code at}, {@code by}). */
  static AuditTrail<Changes> changes(HttpServerResponse response, LongFunction<Future<Changes>> pageAfter) {
    return new AuditTrail<>(response, page -> {
      Buffer lines = Buffer.buffer();
      page.changes().forEach(change -> lines.appendBuffer(line(change)));
      return lines;
    }, page -> page.more() ? pageAfter.apply(page.through()) : null);
  }

  /**
   * Each line a removed question as the audit trail keeps it, its history ({@code history}) included.
   *
   * @param pageAfter the page after the one that ended with this continue token
   */
  static AuditTrail<QuestionPage> removedQuestions(HttpServerResponse response,
                                                   Function<String, Future<QuestionPage>> pageAfter) {
    return new AuditTrail<>(response, page -> {
      Buffer lines = Buffer.buffer();
      page.items().forEach(question -> lines.appendBuffer(jsonLine(QuestionJson.LOG_WRITER, question)));
      return lines;
    }, page -> page.continueToken() != null ? pageAfter.apply(page.continueToken()) : null);
  }

  /** @throws HttpProblem 400 for a {@code since} that is no resourceVersion */
  static long since(String since) {
    if (since == null || since.isEmpty()) {
      return 0;
    }
    try {
      long position = Long.parseLong(since);
      if (position >= 0) {
        return position;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw new HttpProblem(400, "since must be a resourceVersion (a number of 0 or more), not '" + since + "'");
  }

  void send(P page) {
    if (response.closed()) {
      return;
    }
    response.write(lines.apply(page));
    Future<P> following = next.apply(page);
    if (following == null) {
      response.end();
    } else if (response.writeQueueFull()) {
      response.drainHandler(drained -> sendOnceRead(following));
    } else {
      sendOnceRead(following);
    }
  }

  private void sendOnceRead(Future<P> page) {
    page.onSuccess(this::send)
        // The status went out with the first page: a stream cut short is all a client can be told now.
        .onFailure(failure -> response.reset());
  }

  private static Buffer line(QuestionChange change) {
    ObjectNode line = QuestionJson.MAPPER.createObjectNode();
    line.put("resourceVersion", Long.toString(change.position()));
    line.put("type", change.type().wireName());
    line.put("question", change.question().id());
    QuestionAction action = lastOf(change.question().history(), change);
    if (action != null) {
      line.put("at", action.at().toString());
      line.set("by", QuestionJson.MAPPER.valueToTree(action.by()));
    }
    return jsonLine(QuestionJson.MAPPER.writer(), line);
  }

  private static Buffer jsonLine(ObjectWriter writer, Object value) {
    try {
      return Buffer.buffer(writer.writeValueAsBytes(value)).appendByte((byte) '\n');
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The history entry the change wrote: its newest of the change's type (older records have none). */
  private static QuestionAction lastOf(List<QuestionAction> history, QuestionChange change) {
    for (int i = history.size() - 1; i >= 0; i--) {
      if (history.get(i).type() == change.type()) {
        return history.get(i);
      }
    }
    return null;
  }
}
