package ark.broker.auth;

import ark.broker.question.ArkUri;
import ark.broker.question.InvalidQuestionException;

/**
 * Who may say which agent it acts for ({@code X-Ark-Agent}, MCP {@code _meta["ark.mckinsey.com/agent"]}):
 * anyone may name itself; a service may name the agents its {@link AgentPatterns} allow; anyone else naming a
 * different agent is refused with 403, so a caller cannot borrow another agent's questions.
 */
final class Impersonation {
  private Impersonation() {
  }

  /**
   * @param asserted the agent the request names, as a full {@code ark://agents/...} name or a bare name (which
   *     means {@code ark://agents/<name>}, as the MCP surface reads it); {@code null} or blank when it names none
   * @throws AuthFailure 400 for a name that is no agent's, 403 for an agent the grant may not act for
   */
  static Actor actorFor(Grant grant, String asserted) {
    Principal principal = grant.principal();
    if (asserted == null || asserted.isBlank()) {
      return Actor.as(principal);
    }
    String agent = agentName(asserted.trim());
    if (agent.equals(principal.name())) {
      return Actor.as(principal);
    }
    if (grant.mayActFor().allows(agent)) {
      return new Actor(principal, agent);
    }
    throw AuthFailure.forbidden(principal.name() + " may not act for " + agent);
  }

  private static String agentName(String asserted) {
    String name = asserted.startsWith("ark://") ? asserted : Principal.AGENTS + asserted;
    try {
      ArkUri.require("the agent", name);
    } catch (InvalidQuestionException e) {
      throw AuthFailure.badRequest("the agent acted for must look like ark://agents/<name>");
    }
    if (!name.startsWith(Principal.AGENTS)) {
      throw AuthFailure.badRequest("the agent acted for must look like ark://agents/<name>");
    }
    return name;
  }
}
