package ark.broker.channel;

/**
 * A call to a channel's API that did not do its job.
 *
 * @param retryable whether trying again may succeed (rate limits, server errors, timeouts); if not, the
 *     request itself is wrong for that service and repeating it would only fail again
 * @param retryAfterMillis how long the service asked us to wait (429 {@code Retry-After}), or -1
 * @param mayHaveTakenEffect whether the service may have done it anyway (a timeout or a 5xx after the
 *     request was sent): a post is then looked for before it is made again
 */
final class DeliveryFailure extends RuntimeException {
  final boolean retryable;
  final long retryAfterMillis;
  final boolean mayHaveTakenEffect;
  /** The service's own name for the error (Slack's {@code error}), or null. */
  final String serviceError;

  DeliveryFailure(String message, boolean retryable, long retryAfterMillis, boolean mayHaveTakenEffect) {
    this(message, retryable, retryAfterMillis, mayHaveTakenEffect, null);
  }

  DeliveryFailure(String message, boolean retryable, long retryAfterMillis, boolean mayHaveTakenEffect, String serviceError) {
    super(message, null, false, false);
    this.retryable = retryable;
    this.retryAfterMillis = retryAfterMillis;
    this.mayHaveTakenEffect = mayHaveTakenEffect;
    this.serviceError = serviceError;
  }

  static DeliveryFailure permanent(String message) {
    return new DeliveryFailure(message, false, -1, false);
  }
}
