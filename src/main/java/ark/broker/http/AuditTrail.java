package ark.broker.http;

import ark.broker.bus.Messages.Changes;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.question.QuestionAction;
import ark.broker.wire.QuestionJson;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Writes the audit trail as NDJSON, a page of the store's history at a time and only as fast as the client reads:
 * each line one change ({@code resourceVersion}, {@code type}, {@code question}, {@code at}, {@code by}).
 */
final class AuditTrail {
  private final HttpServerResponse response;
  private final LongFunction<Future<Changes>> pageAfter;

  AuditTrail(HttpServerResponse response, LongFunction<Future<Changes>> pageAfter) {
    this.response = response;
    this.pageAfter = pageAfter;
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

  void send(Changes page) {
    if (response.closed()) {
      return;
    }
    Buffer lines = Buffer.buffer();
    for (QuestionChange change : page.changes()) {
      lines.appendBuffer(line(change));
    }
    response.write(lines);
    if (!page.more()) {
      response.end();
    } else if (response.writeQueueFull()) {
      response.drainHandler(drained -> next(page.through()));
    } else {
      next(page.through());
    }
  }

  private void next(long after) {
    pageAfter.apply(after)
        .onSuccess(this::send)
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
    try {
      return Buffer.buffer(QuestionJson.MAPPER.writeValueAsBytes(line)).appendByte((byte) '\n');
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
