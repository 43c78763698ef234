package ark.broker.auth;

import io.vertx.core.json.JsonObject;

import java.util.List;
import java.util.Objects;

/**
 * The outcome of authentication: who proved themselves ({@link #principal()}) and, when a service acts for an
 * agent, that agent ({@link #actingFor()}); both go into the audit trail. Send it with every bus message
 * ({@link #toJson()}) so no room re-reads headers.
 *
 * @param actingFor the {@code ark://agents/...} the principal acts for, or {@code null} when it acts as itself
 */
public record Actor(Principal principal, String actingFor) {
  public Actor {
    Objects.requireNonNull(principal, "principal");
    if (actingFor != null) {
      Principal.requireUri("the agent acted for", actingFor, Principal.AGENTS);
    }
  }

  public static Actor as(Principal principal) {
    return new Actor(principal, null);
  }

  public boolean impersonating() {
    return actingFor != null;
  }

  /**
   * Whose rights apply: the principal itself, or the agent it acts for (an agent principal with no teams,
   * authenticated the way the service was). Ownership checks compare against this one's name.
   */
  public Principal effective() {
    return actingFor == null ? principal : new Principal(PrincipalKind.AGENT, actingFor, List.of(), principal.method());
  }

  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("principal", principal.toJson());
    if (actingFor != null) {
      json.put("actingFor", actingFor);
    }
    return json;
  }

  /** @throws IllegalArgumentException if the JSON is not an actor */
  public static Actor fromJson(JsonObject json) {
    JsonObject principal = json.getJsonObject("principal");
    if (principal == null) {
      throw new IllegalArgumentException("an actor needs a principal");
    }
    return new Actor(Principal.fromJson(principal), json.getString("actingFor"));
  }
}
