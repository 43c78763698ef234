package ark.broker.bus;

import ark.broker.auth.AuthFailure;
import ark.broker.log.LogRecordTooLargeException;
import ark.broker.log.LogUnavailableException;
import ark.broker.question.InvalidQuestionException;
import ark.broker.question.QuestionConflictException;
import ark.broker.question.QuestionNotFoundException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

/**
 * Why the store refused a request or could not answer it. The store replies with the reason's code;
 * {@link BusContract}'s clients turn every failed request into one of these, so each surface translates one type
 * once at its edge (REST to a status, MCP to a JSON-RPC error, channels to their reply).
 */
public final class StoreFailure extends RuntimeException {

  /**
   * The codes are HTTP statuses, because that is the vocabulary every surface already maps from; the
   * channel room answers its inbound requests with them too (401 bad signature, 502 Slack unreachable).
   */
  public enum Reason {
    INVALID(400), UNAUTHORIZED(401), FORBIDDEN(403), NOT_FOUND(404), CONFLICT(409), GONE(410), TOO_LARGE(413),
    UNPROCESSABLE(422), TOO_MANY_REQUESTS(429), INTERNAL(500), BAD_GATEWAY(502), UNAVAILABLE(503);

    public final int code;

    Reason(int code) {
      this.code = code;
    }

    static Reason ofCode(int code) {
      for (Reason reason : values()) {
        if (reason.code == code) {
          return reason;
        }
      }
      return INTERNAL;
    }
  }

  private final Reason reason;
  private final long retryAfterSeconds;

  public StoreFailure(Reason reason, String message) {
    this(reason, message, 0);
  }

  /** @param retryAfterSeconds when the same request may succeed (a budget refills), or 0 for no such hint */
  public StoreFailure(Reason reason, String message, long retryAfterSeconds) {
    super(message, null, false, false);
    this.reason = reason;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public Reason reason() {
    return reason;
  }

  /** Seconds after which the request may succeed, or 0 when the failure says nothing about it. */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }

  /**
   * This failure as the store replies it: a {@link ReplyException} (the bus fails the request with it), which keeps
   * the retry hint that a plain failure code and message would lose.
   */
  public ReplyException asReply() {
    return new Reply(this);
  }

  private static final class Reply extends ReplyException {
    private final long retryAfterSeconds;

    Reply(StoreFailure failure) {
      super(ReplyFailure.RECIPIENT_FAILURE, failure.reason.code, failure.getMessage());
      this.retryAfterSeconds = failure.retryAfterSeconds;
    }
  }

  /** Any failure on the way to or in the store: the domain's refusals, a bus reply, or no reply at all. */
  public static StoreFailure of(Throwable failure) {
    if (failure instanceof StoreFailure known) {
      return known;
    }
    if (failure instanceof LogRecordTooLargeException) {
      return new StoreFailure(Reason.TOO_LARGE, failure.getMessage());
    }
    if (failure instanceof LogUnavailableException) {
      // The log did not take or confirm the write: the caller may try again.
      return new StoreFailure(Reason.UNAVAILABLE, failure.getMessage());
    }
    if (failure instanceof InvalidQuestionException) {
      return new StoreFailure(Reason.INVALID, failure.getMessage());
    }
    if (failure instanceof QuestionNotFoundException) {
      return new StoreFailure(Reason.NOT_FOUND, failure.getMessage());
    }
    if (failure instanceof QuestionConflictException) {
      return new StoreFailure(Reason.CONFLICT, failure.getMessage());
    }
    if (failure instanceof AuthFailure refused) {
      return new StoreFailure(Reason.ofCode(refused.status()), failure.getMessage());
    }
    if (failure instanceof Reply reply) {
      return new StoreFailure(Reason.ofCode(reply.failureCode()), reply.getMessage(), reply.retryAfterSeconds);
    }
    if (failure instanceof ReplyException reply) {
      // No handler (the store is still replaying its log) or no answer in time: worth retrying.
      return new StoreFailure(reply.failureType() == ReplyFailure.RECIPIENT_FAILURE
          ? Reason.ofCode(reply.failureCode()) : Reason.UNAVAILABLE, reply.getMessage());
    }
    return new StoreFailure(Reason.INTERNAL, String.valueOf(failure));
  }

  /** Whether this failure is {@code reason}. */
  public static boolean is(Throwable failure, Reason reason) {
    return of(failure).reason == reason;
  }
}
