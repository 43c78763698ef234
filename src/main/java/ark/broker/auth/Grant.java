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

  /**
   * The actor for a request that names the agent it acts for (or none): see {@link Impersonation}.
   *
   * @throws AuthFailure 400 for a name that is no agent's, 403 for an agent this grant may not act for
   */
  public Actor actFor(String assertedAgent) {
    return Impersonation.actorFor(this, assertedAgent);
  }
}
