package ark.broker.auth;

import ark.broker.question.ArkUri;
import ark.broker.question.InvalidQuestionException;

import java.util.List;
import java.util.Objects;

/**
 * Who makes a request, as proven by its credentials: what it is, its name, its teams and how it was authenticated.
 * Immutable, and safe to log and to send over the event bus: it holds no secret.
 *
 * <p>Agents are named {@code ark://agents/...}, humans {@code ark://users/...}; services and admins may be either.
 *
 * @param teams the {@code ark://teams/...} it belongs to, for questions addressed to a team
 */
public record Principal(PrincipalKind kind, String name, List<String> teams, AuthMethod method) {
  static final String AGENTS = "ark://agents/";
  static final String USERS = "ark://users/";
  static final String TEAMS = "ark://teams/";

  /**
   * The caller when the broker runs open. It has admin rights because an open broker protects nothing: the
   * surfaces then behave as they did before authentication existed. {@link #method()} tells it apart from a
   * real admin.
   */
  public static final Principal ANONYMOUS = new Principal(PrincipalKind.ADMIN, USERS + "anonymous", List.of(),
      AuthMethod.ANONYMOUS);

  public Principal {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(method, "method");
    requireName(kind, name);
    teams = List.copyOf(Objects.requireNonNull(teams, "teams"));
    for (String team : teams) {
      requireUri("a team", team, TEAMS);
    }
  }

  public boolean isAdmin() {
    return kind == PrincipalKind.ADMIN;
  }

  public boolean memberOf(String team) {
    return teams.contains(team);
  }



  private static void requireName(PrincipalKind kind, String name) {
    switch (kind) {
      case AGENT -> requireUri("an agent's name", name, AGENTS);
      case HUMAN -> requireUri("a human's name", name, USERS);
      default -> {
        if (name == null || !name.startsWith(AGENTS)) {
          requireUri("a " + kind.wireName() + "'s name", name, USERS);
        } else {
          requireUri("a " + kind.wireName() + "'s name", name, AGENTS);
        }
      }
    }
  }

  /** The name as {@link ArkUri} accepts it, under the given prefix; an {@link IllegalArgumentException} otherwise. */
  static String requireUri(String what, String value, String prefix) {
    boolean valid;
    try {
      ArkUri.require(what, value);
      valid = value.startsWith(prefix);
    } catch (InvalidQuestionException e) {
      valid = false;
    }
    if (!valid) {
      throw new IllegalArgumentException(what + " must look like " + prefix + "<name>, not '" + value + "'");
    }
    return value;
  }
}
