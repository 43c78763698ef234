package ark.broker.store;

import ark.broker.bus.Addresses;
import ark.broker.bus.StoreFailure;
import ark.broker.log.LogUnavailableException;
import io.vertx.core.Future;
import io.vertx.core.eventbus.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Replies to a store request with its result, or with the {@link StoreFailure} every surface understands. */
final class StoreReplies {
  private static final Logger LOG = LoggerFactory.getLogger(StoreReplies.class);

  private StoreReplies() {
  }

  static void respond(Message<?> message, Future<?> result) {
    result.onComplete(done -> {
      if (done.succeeded()) {
        message.reply(done.result());
        return;
      }
      Throwable failure = done.cause();
      StoreFailure refusal = failure instanceof LogUnavailableException
          ? new StoreFailure(StoreFailure.Reason.UNAVAILABLE, failure.getMessage()) : StoreFailure.of(failure);
      if (refusal.reason() == StoreFailure.Reason.INTERNAL) {
        LOG.error("Store failed a request on {}{}", message.address(), requestSuffix(message), failure);
        refusal = new StoreFailure(StoreFailure.Reason.INTERNAL, "internal error");
      } else if (refusal.reason() == StoreFailure.Reason.UNAVAILABLE) {
        LOG.warn("Store refused a write on {}{}: {}", message.address(), requestSuffix(message), failure.getMessage());
      }
      message.reply(refusal.asReply());
    });
  }

  static String requestSuffix(Message<?> message) {
    String requestId = message.headers().get(Addresses.REQUEST_ID_HEADER);
    return requestId == null ? "" : " [request " + requestId + "]";
  }
}
