package ark.broker.auth;

import ark.broker.question.Attribution;

import java.util.List;
import java.util.Objects;

/**
 * The outcome of authentication: who proved themselves ({@link #principal()}) and, when a service acts for an
 * agent, that agent ({@link #actingFor()}); with where the request came from, all of it goes into the audit
 * trail. Every bus message to the store carries one (by reference), so no room re-reads headers.
 *
 * @param actingFor the {@code ark://agents/...} the principal acts for, or {@code null} when it acts as itself
 * @param address   the client's network address, or {@code null} (the broker's own work)
 * @param userAgent the client's {@code User-Agent}, or {@code null}
 * @param requestId the id of the HTTP or MCP request it makes, which every room's log lines about it carry; or
 *                  {@code null} (the broker's own work)
 */
public record Actor(Principal principal, String actingFor, String address, String userAgent, String requestId) {
  /** The broker's own work (expiry, delivery, Query status): it may read and record everything. */
  public static final Actor BROKER = as(new Principal(PrincipalKind.ADMIN, Principal.USERS + "system:broker",
      List.of(), AuthMethod.INTERNAL));

  public Actor {
    Objects.requireNonNull(principal, "principal");
    if (actingFor != null) {
      Principal.requireUri("the agent acted for", actingFor, Principal.AGENTS);
    }
  }

  public Actor(Principal principal, String actingFor) {
    this(principal, actingFor, null, null, null);
  }

  public static Actor as(Principal principal) {
    return new Actor(principal, null);
  }

  /** The same actor, with where its request came from. */
  public Actor from(String clientAddress, String clientUserAgent) {
    return new Actor(principal, actingFor, clientAddress, clientUserAgent, requestId);
  }

  /** The same actor, making the request {@code id}. */
  public Actor inRequest(String id) {
    return new Actor(principal, actingFor, address, userAgent, id);
  }

  /** What a log line about this actor's request ends with: the request's id, or nothing. */
  public String logSuffix() {
    return requestId == null ? "" : " [request " + requestId + "]";
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

  /** What a question's history records of this actor. */
  public Attribution attribution() {
    return new Attribution(principal.name(), principal.kind().wireName(), principal.method().wireName(), actingFor,
        address, userAgent);
  }
}
