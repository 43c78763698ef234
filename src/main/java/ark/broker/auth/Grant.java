package ark.broker.auth;

import java.util.Objects;

/**
 * What a credential proves: the principal, and the agents it may act for (only a service's credential names
 * any; everyone else gets {@link AgentPatterns#NONE}).
 */
public record Grant(Principal principal, AgentPatterns mayActFor) {
  public Grant {
    Objects.requireNonNull(principal, "principal");
    Objects.requireNonNull(mayActFor, "mayActFor");
    if (!mayActFor.isEmpty() && principal.kind() != PrincipalKind.SERVICE && principal.method() != AuthMethod.ANONYMOUS) {
      throw new IllegalArgumentException("only a service may act for agents, not " + principal.name()
          + " (" + principal.kind().wireName() + ")");
    }
  }

  public static Grant of(Principal principal) {
    return new Grant(principal, AgentPatterns.NONE);
  }
}
