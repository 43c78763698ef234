package ark.broker.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/** Ark's custom resources in the namespaces the broker is set to manage. */
final class ArkResources {
  private ArkResources() {
  }

  /** Resources of {@code kind} in {@code namespace}, or in every namespace for {@link KubeSettings#ALL_NAMESPACES}. */
  static FilterWatchListDeletable<GenericKubernetesResource, GenericKubernetesResourceList, ?> in(
      KubernetesClient client, ResourceDefinitionContext kind, String namespace) {
    return KubeSettings.ALL_NAMESPACES.equals(namespace)
        ? client.genericKubernetesResources(kind).inAnyNamespace()
        : client.genericKubernetesResources(kind).inNamespace(namespace);
  }
}
