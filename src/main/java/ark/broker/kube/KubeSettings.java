package ark.broker.kube;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * How the broker reaches Kubernetes to show pending questions on their Queries.
 *
 * @param enabled {@code auto} turns it on where an in-cluster service account or a kubeconfig exists
 * @param kubeconfig a kubeconfig file to use instead of the usual discovery; empty for discovery
 * @param namespaces where Queries are managed; empty means the client's own namespace (in a cluster, the
 *     pod's), {@code *} means every namespace (which needs a ClusterRole instead of the Role in k8s/)
 * @param resync how often every Query is compared with the view, to repair what a missed change left
 * @param retryInitial first wait after a failed API call; it doubles on each failure up to {@code retryMax}
 * @param apiThreads threads for the blocking Kubernetes calls, so they never queue behind the log's fsyncs
 */
public record KubeSettings(Enabled enabled, String kubeconfig, List<String> namespaces, Duration resync,
                           Duration retryInitial, Duration retryMax, int apiThreads) {

  public static final String ALL_NAMESPACES = "*";

  public enum Enabled {
    AUTO, TRUE, FALSE;

    static Enabled parse(String text) {
      try {
        return valueOf(text.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("kube.enabled must be auto, true or false, not '" + text + "'", e);
      }
    }
  }

  public KubeSettings {
    namespaces = List.copyOf(namespaces);
    if (resync.isZero() || resync.isNegative() || retryInitial.isZero() || retryInitial.isNegative()
        || retryMax.compareTo(retryInitial) < 0 || apiThreads < 1) {
      throw new IllegalArgumentException("kube.resyncSeconds, kube.retryInitialMillis and kube.apiThreads must be"
          + " positive and kube.retryMaxMillis at least kube.retryInitialMillis");
    }
  }

  public static KubeSettings from(JsonObject kube) {
    JsonArray namespaces = kube.getJsonArray("namespaces", new JsonArray());
    return new KubeSettings(
        Enabled.parse(kube.getString("enabled", "auto")),
        kube.getString("kubeconfig", ""),
        namespaces.stream().map(String::valueOf).map(String::trim).filter(n -> !n.isEmpty()).toList(),
        Duration.ofSeconds(kube.getLong("resyncSeconds", 120L)),
        Duration.ofMillis(kube.getLong("retryInitialMillis", 500L)),
        Duration.ofMillis(kube.getLong("retryMaxMillis", 60_000L)),
        kube.getInteger("apiThreads", 4));
  }

  /** The wait before retry number {@code failures} (1 for the first failure). */
  Duration retryDelay(int failures) {
    Duration delay = retryInitial;
    for (int i = 1; i < failures && delay.compareTo(retryMax) < 0; i++) {
      delay = delay.multipliedBy(2);
    }
    return delay.compareTo(retryMax) > 0 ? retryMax : delay;
  }
}
