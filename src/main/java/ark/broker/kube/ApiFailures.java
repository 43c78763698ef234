package ark.broker.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;

import java.net.HttpURLConnection;

/** What a failed Kubernetes call came to, said for the log. */
final class ApiFailures {
  private ApiFailures() {
  }

  /** The object changed between read and write (its controller wrote it): normal, read again. */
  static boolean isConflict(Throwable failure) {
    return failure instanceof KubernetesClientException e && e.getCode() == HttpURLConnection.HTTP_CONFLICT;
  }

  static String describe(Throwable failure) {
    if (failure instanceof KubernetesClientException e && e.getCode() > 0) {
      String reason = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage() : "";
      return "Kubernetes API answered " + e.getCode() + (reason.isEmpty() ? "" : ": " + reason);
    }
    // No answer from the API server: the innermost cause says why (unknown host, refused, timed out).
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
  }
}
