package ark.broker.worker;

import ark.broker.bus.Addresses;
import ark.broker.bus.Messages.WorkerStatus;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

/** With the embedded log there is one process, so it is always the worker. */
public final class SoleWorkerVerticle extends VerticleBase {
  @Override
  public Future<?> start() {
    return vertx.eventBus()
        .localConsumer(Addresses.WORKER_STATUS, message -> message.reply(new WorkerStatus(true)))
        .completion()
        .onSuccess(registered -> vertx.eventBus().publish(Addresses.WORKER_CHANGED, new WorkerStatus(true)));
  }
}
