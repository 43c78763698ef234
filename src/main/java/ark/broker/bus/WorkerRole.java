package ark.broker.bus;

import ark.broker.bus.Messages.WorkerStatus;
import io.vertx.core.Future;
import io.vertx.core.eventbus.EventBus;

import java.util.function.Consumer;

/**
 * How a room follows whether this process is the worker (the one replica that does once-only work):
 * it hears every change, and asks once at start in case the role was settled before it listened.
 */
public final class WorkerRole {
  private WorkerRole() {
  }

  /** Calls {@code onChange} with the current role as soon as it is known, then at every change. */
  public static Future<Void> follow(EventBus bus, Consumer<Boolean> onChange) {
    return bus.<WorkerStatus>localConsumer(Addresses.WORKER_CHANGED, m -> onChange.accept(m.body().active()))
        .completion()
        .onSuccess(listening -> bus.<WorkerStatus>request(Addresses.WORKER_STATUS, "")
            // Without a reply the role is not settled yet; worker.changed will tell.
            .onSuccess(reply -> onChange.accept(reply.body().active())));
  }
}
