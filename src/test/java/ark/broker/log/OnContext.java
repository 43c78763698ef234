package ark.broker.log;

import io.vertx.core.Context;
import io.vertx.core.Future;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Runs a log operation on a Vert.x context, as a verticle would, and waits for it from the test thread. */
final class OnContext {
  private OnContext() {
  }

  static <T> Future<T> run(Context context, Callable<Future<T>> action) {
    CompletableFuture<T> result = new CompletableFuture<>();
    context.runOnContext(ignored -> {
      try {
        action.call().onComplete(done -> {
          if (done.succeeded()) {
            result.complete(done.result());
          } else {
            result.completeExceptionally(done.cause());
          }
        });
      } catch (Exception e) {
        result.completeExceptionally(e);
      }
    });
    return Future.fromCompletionStage(result);
  }

  /** Waits for {@code future}; a failure is thrown as the exception it failed with. */
  static <T> T await(Future<T> future) throws Exception {
    try {
      return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }
}
