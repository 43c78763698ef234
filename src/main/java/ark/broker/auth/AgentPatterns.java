package ark.broker.auth;

import java.util.List;

/**
 * The agents a service principal may act for, like Kubernetes impersonation rules: exact names
 * ({@code ark://agents/reviewer}) or prefixes ending in {@code *} ({@code ark://agents/team-a/*},
 * {@code ark://agents/*} for every agent). A {@code *} anywhere else is refused, so a pattern never means more
 * than it looks like.
 */
public record AgentPatterns(List<String> patterns) {
  public static final AgentPatterns NONE = new AgentPatterns(List.of());
  /** Every agent: only the anonymous caller of an open broker gets this. */
  static final AgentPatterns ANY = new AgentPatterns(List.of(Principal.AGENTS + "*"));

  public AgentPatterns {
    patterns = List.copyOf(patterns);
    for (String pattern : patterns) {
      requireValid(pattern);
    }
  }

  public boolean isEmpty() {
    return patterns.isEmpty();
  }

  /** Whether {@code agent} (a full {@code ark://agents/...} name) matches one of the patterns. */
  public boolean allows(String agent) {
    for (String pattern : patterns) {
      if (pattern.endsWith("*")) {
        String prefix = pattern.substring(0, pattern.length() - 1);
        if (agent.length() > prefix.length() && agent.startsWith(prefix)) {
          return true;
        }
      } else if (agent.equals(pattern)) {
        return true;
      }
    }
    return false;
  }

  private static void requireValid(String pattern) {
    if (pattern == null || !pattern.startsWith(Principal.AGENTS)) {
      throw new IllegalArgumentException("an agent pattern must start with " + Principal.AGENTS + ", not '" + pattern + "'");
    }
    int star = pattern.indexOf('*');
    if (star >= 0 && star != pattern.length() - 1) {
      throw new IllegalArgumentException("an agent pattern may have * only at its end, not '" + pattern + "'");
    }
    if (star < 0) {
      Principal.requireUri("an agent pattern", pattern, Principal.AGENTS);
    } else if (!pattern.substring(0, star).matches("ark://agents/[A-Za-z0-9._@+:/-]*")) {
      throw new IllegalArgumentException("an agent pattern has characters a name cannot have: '" + pattern + "'");
    }
  }
}
