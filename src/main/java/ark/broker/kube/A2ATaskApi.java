package ark.broker.kube;

import ark.broker.kube.ApprovalTask.TaskRef;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.vertx.core.json.JsonObject;

import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Ark's A2ATask resources through fabric8. Every method blocks (but {@link #watch}): call them off the event loop. */
final class A2ATaskApi {
  static final ResourceDefinitionContext A2A_TASKS = new ResourceDefinitionContext.Builder()
      .withGroup("ark.mckinsey.com").withVersion("v1alpha1").withKind("A2ATask").withPlural("a2atasks")
      .withNamespaced(true).build();
  private static final long PAGE = 500;

  private final KubernetesClient client;

  A2ATaskApi(KubernetesClient client) {
    this.client = client;
  }

  /** The task, or null when it does not exist. */
  ApprovalTask get(TaskRef ref) {
    GenericKubernetesResource task = task(ref).get();
    return task == null ? null : ApprovalTask.of(task);
  }

  /** The tasks in {@code namespace} (or every one) that wait for someone to approve or reject tool calls. */
  List<ApprovalTask> listAwaitingDecision(String namespace) {
    List<ApprovalTask> found = new ArrayList<>();
    String next = null;
    do {
      GenericKubernetesResourceList page = ArkResources.in(client, A2A_TASKS, namespace)
          .list(new ListOptionsBuilder().withLimit(PAGE).withContinue(next).build());
      page.getItems().stream().map(ApprovalTask::of).filter(ApprovalTask::awaitsDecision).forEach(found::add);
      next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (next != null && !next.isEmpty());
    return found;
  }

  /**
   * Writes a decision the way ark-api's {@code POST /v1/a2a-tasks/{name}/approval} does: a JSON merge patch of the
   * task (not its status) setting {@code spec.input} to {@code {"decision": "approved"}} (or {@code "rejected"}),
   * the text Python's {@code json.dumps} makes of it. Unlike ark-api it carries the resourceVersion the task was
   * read at, so a decision someone made meanwhile is refused (409) rather than written over.
   *
   * @return false when the task no longer exists
   */
  boolean writeDecision(ApprovalTask task, String decision) {
    JsonObject patch = new JsonObject()
        .put("metadata", new JsonObject().put("resourceVersion", task.resourceVersion()))
        .put("spec", new JsonObject().put("input", "{\"decision\": \"" + decision + "\"}"));
    try {
      task(task.ref()).patch(PatchContext.of(PatchType.JSON_MERGE), patch.encode());
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  /**
   * Tells {@code changed} of every change to a task in {@code namespace} (on fabric8's thread), and {@code closed}
   * when the watch ends for good; missed changes are the periodic pass's to find.
   */
  Watch watch(String namespace, Consumer<TaskRef> changed, Consumer<WatcherException> closed) {
    return ArkResources.in(client, A2A_TASKS, namespace).watch(new Watcher<>() {
      @Override
      public void eventReceived(Action action, GenericKubernetesResource task) {
        changed.accept(new TaskRef(task.getMetadata().getNamespace(), task.getMetadata().getName()));
      }

      @Override
      public void onClose(WatcherException cause) {
        closed.accept(cause);
      }
    });
  }

  private Resource<GenericKubernetesResource> task(TaskRef ref) {
    return client.genericKubernetesResources(A2A_TASKS).inNamespace(ref.namespace()).withName(ref.name());
  }
}
