package ark.broker.kube;

import ark.broker.question.QueryRef;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Ark's Query resources through fabric8. Every method blocks: call them off the event loop. */
final class QueryApi {
  static final ResourceDefinitionContext QUERIES = new ResourceDefinitionContext.Builder()
      .withGroup("ark.mckinsey.com").withVersion("v1alpha1").withKind("Query").withPlural("queries")
      .withNamespaced(true).build();
  private static final long PAGE = 500;

  private final KubernetesClient client;

  QueryApi(KubernetesClient client) {
    this.client = client;
  }

  /** The Query, or null when it does not exist. */
  QueryState get(QueryRef ref) {
    return state(query(ref).get());
  }

  /** Queries in {@code namespace} (or every one, for {@link KubeSettings#ALL_NAMESPACES}) that show a question. */
  List<QueryState> listShowingAQuestion(String namespace, Predicate<QueryState> showsAQuestion) {
    List<QueryState> found = new ArrayList<>();
    String next = null;
    do {
      GenericKubernetesResourceList page = queries(namespace)
          .list(new ListOptionsBuilder().withLimit(PAGE).withContinue(next).build());
      for (GenericKubernetesResource item : page.getItems()) {
        QueryState query = state(item);
        if (showsAQuestion.test(query)) {
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

  private Resource<GenericKubernetesResource> query(QueryRef ref) {
    return client.genericKubernetesResources(QUERIES).inNamespace(ref.namespace()).withName(ref.name());
  }

  private FilterWatchListDeletable<GenericKubernetesResource, GenericKubernetesResourceList, ?> queries(String namespace) {
    return ArkResources.in(client, QUERIES, namespace);
  }

  private static QueryState state(GenericKubernetesResource resource) {
    if (resource == null) {
      return null;
    }
    return QueryState.of(resource.getMetadata().getNamespace(), resource.getMetadata().getName(),
        resource.getMetadata().getResourceVersion(), resource.getMetadata().getGeneration(),
        resource.getAdditionalProperties().get("status"));
  }
}
