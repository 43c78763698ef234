package ark.broker.mcp;

import ark.broker.auth.AuthFailure;
import ark.broker.auth.Authenticators;
import ark.broker.auth.Grant;
import ark.broker.auth.Principal;
import ark.broker.edge.RequestAuthority;
import ark.broker.mcp.protocol.ClientAuthentication;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The MCP endpoint's door, per the MCP authorization spec for a resource server: a bearer token on every request
 * (401 with {@code WWW-Authenticate: Bearer resource_metadata="..."} without one), the session bound to the
 * principal that initialized it. What a request proves is a {@link Grant}: each message may then name the agent
 * it acts for ({@link Caller}).
 */
final class McpAuthentication implements ClientAuthentication {
  static final String METADATA_PATH = "/.well-known/oauth-protected-resource";

  private final Vertx vertx;
  private final Authenticators authenticators;
  private final String mcpPath;

  McpAuthentication(Vertx vertx, Authenticators authenticators, String mcpPath) {
    this.vertx = vertx;
    this.authenticators = authenticators;
    this.mcpPath = mcpPath;
  }

  @Override
  public Future<ClientIdentity> authenticate(HttpServerRequest request) {
    return authenticators.grant(vertx, request.getHeader("Authorization"))
        .<ClientIdentity>map(grant -> new ClientIdentity(owner(grant.principal()), new McpCredentials(grant,
            request.remoteAddress() == null ? null : request.remoteAddress().hostAddress(), request.getHeader("User-Agent"))))
        .recover(failure -> Future.failedFuture(failure instanceof AuthFailure refused
            ? new Refused(refused.status(), refused.challenge(baseUrl(request) + METADATA_PATH + mcpPath),
                reason(refused.status()) + ": " + refused.getMessage())
            : failure));
  }

  /**
   * RFC 9728 metadata, at the path-inserted URL MCP clients try first ({@code /.well-known/oauth-protected-resource/mcp})
   * and at the root one.
   */
  void serveMetadata(RoutingContext ctx) {
    ctx.json(authenticators.resourceMetadata(baseUrl(ctx.request()) + mcpPath));
  }

  /**
   * The session's owner, as the protocol layer compares it: kind and name. The session store counts sessions against
   * the budget of the principal itself (by its name, with its teams), which {@link CachedSessionRepository#start}
   * passes from the grant.
   */
  private static String owner(Principal principal) {
    return principal.kind().wireName() + " " + principal.name();
  }

  /** Only reached past the endpoint's host check: the host is one it answers to, never any a client makes up. */
  private static String baseUrl(HttpServerRequest request) {
    String authority = RequestAuthority.of(request);
    return request.scheme() + "://" + (authority == null ? "localhost" : authority);
  }

  private static String reason(int status) {
    return switch (status) {
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 503 -> "Service Unavailable";
      default -> "Bad Request";
    };
  }
}
