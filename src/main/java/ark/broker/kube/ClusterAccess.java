package ark.broker.kube;

import io.fabric8.kubernetes.client.Config;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Optional;

/**
 * Whether Kubernetes is configured for this process, and the client configuration if it is. Reading the
 * files blocks, so callers run this off the event loop.
 */
final class ClusterAccess {
  /** Where Kubernetes mounts a pod's service account token. */
  static final Path SERVICE_ACCOUNT_TOKEN = Path.of(Config.KUBERNETES_SERVICE_ACCOUNT_TOKEN_PATH);

  /** @param config the client configuration, or null when off; {@code reason} says why either way */
  record Decision(Config config, String reason) {
    boolean on() {
      return config != null;
    }
  }

  private ClusterAccess() {
  }

  static Decision decide(KubeSettings settings) {
    return decide(settings, SERVICE_ACCOUNT_TOKEN, Config.getKubeconfigFilenames());
  }

  /** @param kubeconfigs the files fabric8 would read ($KUBECONFIG, else ~/.kube/config) */
  static Decision decide(KubeSettings settings, Path serviceAccountToken, Collection<String> kubeconfigs) {
    Optional<Path> ownKubeconfig = settings.kubeconfig().isBlank()
        ? Optional.empty() : Optional.of(Path.of(settings.kubeconfig()));
    if (settings.enabled() == KubeSettings.Enabled.FALSE) {
      return new Decision(null, "kube.enabled is false");
    }
    if (ownKubeconfig.isPresent()) {
      Path file = ownKubeconfig.get();
      if (Files.isRegularFile(file)) {
        return new Decision(configured(Config.fromKubeconfig(file.toFile())), "kubeconfig " + file);
      }
      if (settings.enabled() == KubeSettings.Enabled.AUTO) {
        return new Decision(null, "kube.kubeconfig names " + file + ", which does not exist");
      }
      throw new IllegalArgumentException("kube.kubeconfig names " + file + ", which does not exist");
    }
    if (Files.isRegularFile(serviceAccountToken)) {
      return new Decision(configured(Config.autoConfigure(null)), "the pod's service account");
    }
    Optional<String> kubeconfig = kubeconfigs.stream().filter(name -> new File(name).isFile()).findFirst();
    if (kubeconfig.isPresent()) {
      return new Decision(configured(Config.autoConfigure(null)), "kubeconfig " + kubeconfig.get());
    }
    if (settings.enabled() == KubeSettings.Enabled.TRUE) {
      return new Decision(configured(Config.autoConfigure(null)), "fabric8's defaults (kube.enabled is true, but"
          + " there is no service account or kubeconfig)");
    }
    return new Decision(null, "no in-cluster service account and no kubeconfig found (set KUBE_ENABLED=true or"
        + " KUBE_KUBECONFIG to turn it on)");
  }

  /** The broker retries with its own backoff, level-triggered; fabric8's retries would only hide failures. */
  private static Config configured(Config config) {
    config.setRequestRetryBackoffLimit(0);
    return config;
  }
}
