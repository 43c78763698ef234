package ark.broker.question;

import java.util.regex.Pattern;

/** The Kubernetes Query that asked a question; its status shows the question while it is pending. */
public record QueryRef(String namespace, String name) {

  // RFC 1123 label (namespace) and subdomain (object name), as the API server enforces them.
  private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public QueryRef {
    if (namespace == null || !NAMESPACE.matcher(namespace).matches()) {
      throw new InvalidQuestionException("query.namespace must be a Kubernetes namespace name, not '" + namespace + "'");
    }
    if (name == null || name.length() > 253 || !NAME.matcher(name).matches()) {
      throw new InvalidQuestionException("query.name must be a Kubernetes object name, not '" + name + "'");
    }
  }

  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
