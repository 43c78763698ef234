package ark.broker.mcp;

import ark.broker.access.QuestionAccess;
import ark.broker.auth.Actor;
import ark.broker.bus.Messages.QuestionChange;
import ark.broker.bus.QuestionStore;
import ark.broker.mcp.protocol.JsonRpcError;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.question.Question;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Waits for questions to be answered (or cancelled, or to expire) on behalf of MCP requests. One
 * event-bus subscription serves every waiter, so ten thousand waiting agents cost a map entry each.
 * While it waits it keeps the client informed with progress notifications, which also keep the
 * client's and any proxy's timeouts from firing.
 */
final class QuestionWatch {
  private final Vertx vertx;
  private final QuestionStore store;
  private final long progressIntervalMillis;
  private final Map<String, List<Consumer<QuestionChange>>> listeners = new HashMap<>();
  /** What ends each wait that has a time limit, as its limit would. */
  private final Set<Runnable> timeLimits = new HashSet<>();

  QuestionWatch(Vertx vertx, QuestionStore store, long progressIntervalMillis) {
    this.vertx = vertx;
    this.store = store;
    this.progressIntervalMillis = progressIntervalMillis;
  }

  /** The state of a cut stream that waits for a question: {@code {"q": id}}. */
  static ObjectNode resumeState(String questionId) {
    return McpJson.object().put("q", questionId);
  }

  /** Whether a (client-supplied) state is exactly a {@link #resumeState}. */
  static boolean isResumeState(JsonNode state) {
    return state.isObject() && state.size() == 1 && state.path("q").isTextual();
  }

  /** The question a {@link #resumeState} waits for. */
  static String resumedQuestion(JsonNode state) {
    return state.get("q").textValue();
  }

  /** Every change, from the store's published stream. */
  void changed(QuestionChange change) {
    List<Consumer<QuestionChange>> waiting = listeners.get(change.question().id());
    if (waiting != null) {
      new ArrayList<>(waiting).forEach(listener -> listener.accept(change));
    }
  }

  int waiting() {
    return listeners.size();
  }

  /**
   * Completes with the question once it is final, or with the question as it then is after
   * {@code maxWaitMillis} (no limit when negative). Fails if the question does not exist for the caller or the
   * request is cancelled.
   *
   * <p>The id may come from a client (a resumed stream names it), so nothing of the question reaches the client
   * before the store's read has said that the caller may see it, and every change is put to the same decision
   * ({@link QuestionAccess#maySee}) before it is kept or sent.
   */
  Future<Question> untilFinal(RequestContext ctx, String id, long maxWaitMillis) {
    Caller caller;
    try {
      caller = Caller.of(ctx);
    } catch (RuntimeException refused) {
      return Future.failedFuture(refused);
    }
    Actor actor = caller.actor();
    Promise<Question> done = Promise.promise();
    Question[] latest = new Question[1];
    boolean[] seen = {false};
    int[] progress = {0};
    DeliveryNotices deliveryNotices = new DeliveryNotices();
    Consumer<QuestionChange> listener = change -> {
      if (!QuestionAccess.maySee(actor, change.question())) {
        return;
      }
      latest[0] = change.question();
      if (!seen[0]) {
        return;
      }
      if (change.question().outcome().status().isFinal()) {
        done.tryComplete(change.question());
      } else {
        deliveryNotices.untold(change.question()).forEach(notice -> ctx.progress(++progress[0], null, notice));
      }
    };
    // Listening before the read: a change between the read and the listening would be missed.
    listen(id, listener);
    // Ten thousand waiting calls would otherwise keep ten thousand timers that send nothing.
    long ticker = !ctx.wantsProgress() ? -1 : ctx.periodically(progressIntervalMillis, () -> {
      if (seen[0]) {
        ctx.progress(++progress[0], null, waitingFor(latest[0]));
      }
    });
    // Ends the wait with the question as it is; until the caller's read of it, as soon as that is done.
    boolean[] limitReached = {false};
    Runnable endOfLimit = () -> {
      limitReached[0] = true;
      if (seen[0]) {
        done.tryComplete(latest[0]);
      }
    };
    long deadline = maxWaitMillis < 0 ? -1 : vertx.setTimer(Math.max(1, maxWaitMillis), t -> endOfLimit.run());
    if (maxWaitMillis >= 0) {
      timeLimits.add(endOfLimit);
    }
    ctx.onCancel(() -> done.tryFail(new JsonRpcError(JsonRpcError.INTERNAL_ERROR, "request cancelled", null)));
    store.find(actor, id).onComplete(found -> {
      if (found.failed()) {
        done.tryFail(found.cause());
      } else if (found.result() == null) {
        done.tryFail(JsonRpcError.invalidParams("question " + id + " not found"));
      } else {
        seen[0] = true;
        if (latest[0] == null || latest[0].resourceVersion() < found.result().resourceVersion()) {
          latest[0] = found.result();
        }
        if (latest[0].outcome().status().isFinal() || limitReached[0]) {
          done.tryComplete(latest[0]);
        } else if (maxWaitMillis != 0) {
          ctx.progress(++progress[0], null, waitingFor(latest[0]));
          // Deliveries made before this wait began (or while a resumed stream was cut) are told as well.
          deliveryNotices.untold(latest[0]).forEach(notice -> ctx.progress(++progress[0], null, notice));
        }
      }
    });
    return done.future().onComplete(finished -> {
      unlisten(id, listener);
      timeLimits.remove(endOfLimit);
      if (ticker >= 0) {
        vertx.cancelTimer(ticker);
      }
      if (deadline >= 0) {
        vertx.cancelTimer(deadline);
      }
    });
  }

  /** Ends every wait that has a time limit now, as its limit would: this replica stops serving. */
  void endTimedWaits() {
    List.copyOf(timeLimits).forEach(Runnable::run);
  }

  private static String waitingFor(Question question) {
    return "Waiting for an answer from " + question.asked().recipient() + " to question " + question.id();
  }

  private void listen(String id, Consumer<QuestionChange> listener) {
    listeners.computeIfAbsent(id, key -> new ArrayList<>(1)).add(listener);
  }

  private void unlisten(String id, Consumer<QuestionChange> listener) {
    List<Consumer<QuestionChange>> waiting = listeners.get(id);
    if (waiting != null && waiting.remove(listener) && waiting.isEmpty()) {
      listeners.remove(id);
    }
  }
}
