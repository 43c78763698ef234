package ark.broker.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one entry point of authentication: a request's {@code Authorization} header (and the agent it says it acts
 * for) in, an {@link Actor} or an {@link AuthFailure} out. The surfaces call it at their edge and send the actor
 * with every bus message.
 *
 * <p>Tokens are tried in order: the static tokens file (a hash lookup), then, for JWTs, the OIDC issuer. When the
 * broker runs open every request is {@link Principal#ANONYMOUS}, whatever it sends, and may name any agent.
 *
 * <p>Threads: {@link #authenticate(String, String)} may block (it looks at the tokens file at most once per
 * {@code auth.tokensCheckMillis}, and fetches the issuer's keys when they are unknown or stale), so it must run on
 * a worker thread; from an event loop use {@link #authenticate(Vertx, String, String)}, which does that.
 * Instances are thread-safe.
 */
public final class Authenticators {
  private static final Logger LOG = LoggerFactory.getLogger(Authenticators.class);
  private static final Authenticators OPEN = new Authenticators(List.of(), List.of(), List.of(), Duration.ZERO,
      Optional.empty(), ClusterNetworks.of(List.of()));
  private static final Grant OPEN_GRANT = new Grant(Principal.ANONYMOUS, AgentPatterns.ANY);

  /** Empty when open. */
  private final List<Authenticator> chain;
  /** The OIDC issuers whose tokens are accepted, for clients that discover where to get one. */
  private final List<String> issuers;
  /** The scopes their tokens must grant, for clients to ask for. */
  private final List<String> scopes;
  private final RecentGrants recent;
  private final Optional<DashboardSignIn> dashboardSignIn;
  private final ClusterNetworks clusterNetworks;

  private Authenticators(List<Authenticator> chain, List<String> issuers, List<String> scopes, Duration remembered,
                         Optional<DashboardSignIn> dashboardSignIn, ClusterNetworks clusterNetworks) {
    this.chain = List.copyOf(chain);
    this.issuers = List.copyOf(issuers);
    this.scopes = List.copyOf(scopes);
    this.recent = new RecentGrants(remembered.toNanos());
    this.dashboardSignIn = dashboardSignIn;
    this.clusterNetworks = clusterNetworks;
  }

  /**
   * Decides ({@link AuthStartup}) and builds at start: logs the one warning of an open broker, reads the tokens
   * file. The OIDC keys are fetched with the first token, so an issuer that is down does not stop the start.
   *
   * @param bindHosts each setting naming a listening host and its value, e.g. {@code {"http.host": "0.0.0.0"}}
   * @throws IllegalStateException when the broker must not start this way, with a message naming the settings
   * @throws IllegalArgumentException when the tokens file cannot be read or used
   */
  public static Authenticators start(AuthSettings settings, Map<String, String> bindHosts) {
    AuthStartup decision = AuthStartup.decide(settings, bindHosts);
    switch (decision.outcome()) {
      case REFUSE -> throw new IllegalStateException(decision.message());
      case OPEN -> {
        LOG.warn(decision.message());
        return OPEN;
      }
      default -> {
        Authenticators authenticators = configured(settings);
        LOG.info("authentication on: {}", authenticators.describe(settings));
        return authenticators;
      }
    }
  }

  /** Every request anonymous, as {@code auth.mode: none}; for tests and tools. */
  public static Authenticators open() {
    return OPEN;
  }

  /** The configured authenticators, without the start-up decision (tests; {@link #start} decides first). */
  static Authenticators configured(AuthSettings settings) {
    List<Authenticator> chain = new ArrayList<>();
    Optional<StaticTokenAuthenticator> tokens = settings.tokensFile()
        .map(file -> StaticTokenAuthenticator.load(file, settings.tokensCheck()));
    tokens.ifPresent(chain::add);
    if (settings.oidc().configured()) {
      chain.add(new OidcAuthenticator(settings.oidc(), name -> tokens.isPresent() && tokens.get().names(name)));
    }
    if (chain.isEmpty()) {
      throw new IllegalStateException("no authentication is configured");
    }
    boolean oidc = settings.oidc().configured();
    return new Authenticators(chain, oidc ? List.of(settings.oidc().issuer()) : List.of(),
        oidc ? settings.oidc().requiredScopes() : List.of(), settings.tokensCheck(), settings.dashboardSignIn(),
        settings.clusterNetworks());
  }

  static Authenticators of(List<Authenticator> chain) {
    return new Authenticators(chain, List.of(), List.of(), Duration.ZERO, Optional.empty(), ClusterNetworks.of(List.of()));
  }

  /**
   * The OAuth 2.0 Protected Resource Metadata (RFC 9728) of {@code resource}, a URL this broker serves: how to
   * send a token, which authorization servers issue them and which scopes a token needs. MCP clients read it after
   * a 401.
   */
  public JsonObject resourceMetadata(String resource) {
    JsonObject metadata = new JsonObject()
        .put("resource", resource)
        .put("authorization_servers", new JsonArray(issuers))
        .put("bearer_methods_supported", new JsonArray().add("header"))
        .put("resource_name", "Ark Broker");
    if (!scopes.isEmpty()) {
      metadata.put("scopes_supported", new JsonArray(scopes));
    }
    return metadata;
  }

  /** How the dashboard signs people in at the issuer; empty when it offers only a pasted token, or runs open. */
  public Optional<DashboardSignIn> dashboardSignIn() {
    return dashboardSignIn;
  }

  /**
   * Who a request without a token from {@code address} is on the routes of Ark's broker: Ark's in-cluster caller
   * ({@link ClusterNetworks#PRINCIPAL}) when the address lies in {@code auth.clusterNetworks}; else null, and the
   * request needs a token like any other (while the broker runs open, every request is anonymous anyway).
   */
  public Actor clusterCaller(String address) {
    return !isOpen() && clusterNetworks.contains(address) ? Actor.as(ClusterNetworks.PRINCIPAL) : null;
  }

  /** Whether every request is anonymous: the surfaces then ask for no token (no 401, no challenge). */
  public boolean isOpen() {
    return chain.isEmpty();
  }

  /**
   * Blocking: call on a worker thread.
   *
   * @param authorization the {@code Authorization} header's value, or {@code null}
   * @param assertedAgent the agent the request says it acts for ({@code X-Ark-Agent}, MCP {@code _meta}), a full
   *     {@code ark://agents/...} or a bare name, or {@code null}
   * @throws AuthFailure 401 without a valid token, 400 for a malformed agent name, 403 for an agent the principal
   *     may not act for, 503 when the issuer's keys cannot be fetched
   */
  public Actor authenticate(String authorization, String assertedAgent) {
    return grant(authorization).actFor(assertedAgent);
  }

  /** {@link #authenticate(String, String)} on a worker thread (unordered), for callers on an event loop. */
  public Future<Actor> authenticate(Vertx vertx, String authorization, String assertedAgent) {
    return grant(vertx, authorization).compose(grant -> {
      try {
        return Future.succeededFuture(grant.actFor(assertedAgent));
      } catch (AuthFailure failure) {
        return Future.failedFuture(failure);
      }
    });
  }

  /**
   * What the request's token proves, before any agent it names: for surfaces where the agent comes later, such
   * as MCP, whose messages each name theirs ({@link Grant#actFor}). Blocking: call on a worker thread.
   *
   * @throws AuthFailure 401 without a valid token, 503 when the issuer's keys cannot be fetched
   */
  public Grant grant(String authorization) {
    return isOpen() ? OPEN_GRANT : grantFor(BearerToken.from(authorization));
  }

  /**
   * {@link #grant(String)} for callers on an event loop: a token seen a moment ago is answered right away
   * ({@link RecentGrants}), any other on a worker thread (unordered).
   */
  public Future<Grant> grant(Vertx vertx, String authorization) {
    if (isOpen()) {
      return Future.succeededFuture(OPEN_GRANT); // no I/O: no thread hop
    }
    String token;
    try {
      token = BearerToken.from(authorization);
    } catch (AuthFailure failure) {
      return Future.failedFuture(failure);
    }
    Grant known = recent.find(token);
    if (known != null) {
      return Future.succeededFuture(known);
    }
    return vertx.executeBlocking(() -> {
      Grant grant = grantFor(token);
      recent.remember(token, grant);
      return grant;
    }, false);
  }

  private Grant grantFor(String token) {
    for (Authenticator authenticator : chain) {
      Optional<Grant> grant = authenticator.authenticate(token);
      if (grant.isPresent()) {
        return grant.get();
      }
    }
    throw AuthFailure.invalidToken("the token is not known");
  }

  private String describe(AuthSettings settings) {
    List<String> parts = new ArrayList<>();
    for (Authenticator authenticator : chain) {
      if (authenticator instanceof StaticTokenAuthenticator tokens) {
        parts.add(tokens.size() + " static tokens from " + settings.tokensFile().orElseThrow());
      } else if (authenticator instanceof OidcAuthenticator) {
        parts.add("OIDC tokens from " + settings.oidc().issuer() + " for audience " + settings.oidc().audience());
      }
    }
    return String.join(", ", parts);
  }
}
