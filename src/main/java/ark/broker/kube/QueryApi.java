package ark.broker.kube;

import ark.broker.question.QueryRef;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;

/** Ark's Query resources through fabric8. Every method blocks: call them off the event loop. */
final class QueryApi implements AutoCloseable {
  static final ResourceDefinitionContext QUERIES = new ResourceDefinitionContext.Builder()
      .withGroup("ark.mckinsey.com").withVersion("v1alpha1").withKind("Query").withPlural("queries")
      .withNamespaced(true).build();
  private static final long PAGE = 500;

  private final KubernetesClient client;

  QueryApi(Config config) {
    this.client = new KubernetesClientBuilder().withConfig(config).build();
  }

  String apiServer() {
    return client.getConfiguration().getMasterUrl();
  }

  /** The namespace the client works in when none is named: in a cluster, the pod's own. */
  String ownNamespace() {
    String namespace = client.getNamespace();
    return namespace == null ? "default" : namespace;
  }

  /** The Query, or null when it does not exist. */
  QueryState get(QueryRef ref) {
    return state(query(ref).get());
  }

  /** Queries in {@code namespace} (or every one, for {@link KubeSettings#ALL_NAMESPACES}) that name a question or wait. */
  List<QueryState> listShowingAQuestion(String namespace) {
    List<QueryState> found = new ArrayList<>();
    String next = null;
    do {
      GenericKubernetesResourceList page = queries(namespace)
          .list(new ListOptionsBuilder().withLimit(PAGE).withContinue(next).build());
      for (GenericKubernetesResource item : page.getItems()) {
        QueryState query = state(item);
        if (query.isWaiting() || query.waitingFor() != null) {
          found.add(query);
        }
      }
      next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
    } while (next != null && !next.isEmpty());
    return found;
  }

  /** Applies a JSON merge patch to the status subresource; false when the Query no longer exists. */
  boolean patchStatus(QueryRef ref, String mergePatch) {
    try {
      query(ref).subresource("status").patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public void close() {
    client.close();
  }

  private Resource<GenericKubernetesResource> query(QueryRef ref) {
    return client.genericKubernetesResources(QUERIES).inNamespace(ref.namespace()).withName(ref.name());
  }

  private FilterWatchListDeletable<GenericKubernetesResource, GenericKubernetesResourceList, ?> queries(String namespace) {
    return KubeSettings.ALL_NAMESPACES.equals(namespace)
        ? client.genericKubernetesResources(QUERIES).inAnyNamespace()
        : client.genericKubernetesResources(QUERIES).inNamespace(namespace);
  }

  private static QueryState state(GenericKubernetesResource resource) {
    if (resource == null) {
      return null;
    }
    return QueryState.of(resource.getMetadata().getNamespace(), resource.getMetadata().getName(),
        resource.getMetadata().getResourceVersion(), resource.getAdditionalProperties().get("status"));
  }
}
