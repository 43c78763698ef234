package ark.broker.edge;

import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * DNS-rebinding protection: a web page on another site must not reach a local broker (MCP, REST, the
 * dashboard) through the browser. Requests must name an allowed host, and a browser's Origin must be an
 * allowed host too.
 */
public final class HostPolicy {
  private final List<String> allowed;

  public HostPolicy(List<String> allowedHosts) {
    this.allowed = allowedHosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList();
  }

  /** Why the request is refused, or null if it may pass. */
  public String refusal(String hostHeader, String origin) {
    if (allowed.contains("*")) {
      return null;
    }
    String host = hostName(hostHeader);
    if (host == null || !isAllowed(host)) {
      return "Invalid Host header: " + hostHeader;
    }
    if (origin != null) {
      String originHost;
      try {
        originHost = URI.create(origin).getHost();
      } catch (IllegalArgumentException e) {
        originHost = null;
      }
      if (originHost == null || !isAllowed(bracketed(originHost.toLowerCase(Locale.ROOT)))) {
        return "Invalid Origin header: " + origin;
      }
    }
    return null;
  }

  /** An entry "*.example.com" allows every name under example.com, such as a cluster's service names. */
  private boolean isAllowed(String host) {
    for (String entry : allowed) {
      if (entry.equals(host) || (entry.startsWith("*.") && host.endsWith(entry.substring(1)))) {
        return true;
      }
    }
    return false;
  }

  /** The host of a Host header without its port; IPv6 literals keep their brackets. */
  private static String hostName(String hostHeader) {
    if (hostHeader == null || hostHeader.isBlank()) {
      return null;
    }
    String host = hostHeader.trim().toLowerCase(Locale.ROOT);
    if (host.startsWith("[")) {
      int end = host.indexOf(']');
      return end < 0 ? null : host.substring(0, end + 1);
    }
    int colon = host.indexOf(':');
    return colon < 0 ? host : host.substring(0, colon);
  }

  private static String bracketed(String host) {
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }
}
