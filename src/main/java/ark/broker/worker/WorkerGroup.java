package ark.broker.worker;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/** The replicas sharing a Kafka cluster's state as the worker group sees them: every running replica is a member. */
public final class WorkerGroup {
  private WorkerGroup() {
  }

  /** How many replicas are members of the worker group now (blocks for the answer: not for an event loop). */
  public static int members(KafkaWorkerSettings settings) throws ExecutionException, InterruptedException {
    int timeoutMillis = (int) Math.max(10_000, settings.requestTimeoutMillis());
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", settings.bootstrapServers(),
        "request.timeout.ms", timeoutMillis, "default.api.timeout.ms", timeoutMillis))) {
      return admin.describeConsumerGroups(List.of(settings.group())).describedGroups().get(settings.group()).get()
          .members().size();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof GroupIdNotFoundException) {
        return 0;
      }
      throw e;
    }
  }
}
