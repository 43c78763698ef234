package ark.broker.kube;

import ark.broker.reconcile.Backoff;
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
 * @param retry the waits after failed API calls: from {@code kube.retryInitialMillis}, doubling on each failure up to
 *     {@code kube.retryMaxMillis}
 * @param apiThreads threads for the blocking Kubernetes calls, so they never queue behind the log's fsyncs
 * @param queryStatusMode how a Query shows its pending questions
 * @param approvals whether and to whom Ark's A2ATask approvals go as questions
 */
public record KubeSettings(Enabled enabled, String kubeconfig, List<String> namespaces, Duration resync,
                           Backoff retry, int apiThreads, QueryStatusMode queryStatusMode, ApprovalRouting approvals) {

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

  /**
   * {@code condition}: the broker's own condition, which a stock Ark Query CRD accepts; {@code phase}: the seed's
   * {@code phase: waiting} and {@code waitingFor}, only for clusters whose Query CRD carries that change.
   */
  public enum QueryStatusMode {
    CONDITION, PHASE;

    static QueryStatusMode parse(String text) {
      try {
        return valueOf(text.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("kube.queryStatusMode must be condition or phase, not '" + text + "'", e);
      }
    }
  }

  public KubeSettings {
    namespaces = List.copyOf(namespaces);
  }

  public static KubeSettings from(JsonObject kube) {
    long resyncSeconds = kube.getLong("resyncSeconds");
    long retryInitial = kube.getLong("retryInitialMillis");
    long retryMax = kube.getLong("retryMaxMillis");
    int apiThreads = kube.getInteger("apiThreads");
    if (resyncSeconds < 1 || retryInitial < 1 || retryMax < retryInitial || apiThreads < 1) {
      throw new IllegalArgumentException("kube.resyncSeconds, kube.retryInitialMillis and kube.apiThreads must be"
          + " positive and kube.retryMaxMillis at least kube.retryInitialMillis");
    }
    return new KubeSettings(
        Enabled.parse(kube.getString("enabled")),
        kube.getString("kubeconfig"),
        kube.getJsonArray("namespaces").stream().map(String::valueOf).map(String::trim).filter(n -> !n.isEmpty()).toList(),
        Duration.ofSeconds(resyncSeconds),
        new Backoff(retryInitial, retryMax),
        apiThreads,
        QueryStatusMode.parse(kube.getString("queryStatusMode")),
        ApprovalRouting.from(kube.getJsonObject("approvals")));
  }
}
