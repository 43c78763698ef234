package ark.broker.channel;

import ark.broker.reconcile.Backoff;
import ark.broker.reconcile.KeyedWorkQueue.RetryPolicy;

/** A call to a channel's API (or to the store, on a delivery's behalf) that did not do its job. */
public final class DeliveryFailure extends RuntimeException {
  /**
   * Whether trying again may succeed (rate limits, server errors, timeouts); if not, the request itself is wrong
   * for that service and repeating it would only fail again.
   */
  final boolean retryable;
  /** How long the service asked us to wait (429 {@code Retry-After}), or -1. */
  final long retryAfterMillis;
  /**
   * Whether the service may have done it anyway (a timeout or a 5xx after the request was sent): a post is then
   * looked for before it is made again.
   */
  final boolean mayHaveTakenEffect;
  /** The service's own name for the error (Slack's {@code error}), or null. */
  private final String serviceError;

  public DeliveryFailure(String message, boolean retryable, long retryAfterMillis, boolean mayHaveTakenEffect) {
    this(message, retryable, retryAfterMillis, mayHaveTakenEffect, null);
  }

  public DeliveryFailure(String message, boolean retryable, long retryAfterMillis, boolean mayHaveTakenEffect, String serviceError) {
    super(message, null, false, false);
    this.retryable = retryable;
    this.retryAfterMillis = retryAfterMillis;
    this.mayHaveTakenEffect = mayHaveTakenEffect;
    this.serviceError = serviceError;
  }

  /** Whether the service named the error {@code error}. */
  public static boolean isServiceError(Throwable failure, String error) {
    return failure instanceof DeliveryFailure delivery && error.equals(delivery.serviceError);
  }

  /**
   * When a destination tries again (its queue keeps its interval too): after the {@code Retry-After}
   * its service asked for, else after {@code backoff}; never after a failure retrying cannot fix.
   */
  static RetryPolicy retries(Backoff backoff) {
    return (failure, failures) -> failure instanceof DeliveryFailure delivery && delivery.retryable
        ? (delivery.retryAfterMillis >= 0 ? delivery.retryAfterMillis : backoff.delayMillis(failures))
        : -1;
  }
}
