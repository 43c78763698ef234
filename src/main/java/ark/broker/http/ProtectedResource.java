package ark.broker.http;

import ark.broker.auth.Authenticators;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /.well-known/oauth-protected-resource} (RFC 9728) for the REST API: where its tokens come from. The
 * 401 challenge points here, as MCP's does to its own.
 */
final class ProtectedResource {
  static final String PATH = "/.well-known/oauth-protected-resource";

  private ProtectedResource() {
  }

  static void serve(RoutingContext ctx, Authenticators authenticators) {
    ctx.json(authenticators.resourceMetadata(baseUrl(ctx)));
  }

  /** The metadata's URL on the host and scheme the client used. */
  static String metadataUrl(RoutingContext ctx) {
    return baseUrl(ctx) + PATH;
  }

  private static String baseUrl(RoutingContext ctx) {
    var authority = ctx.request().authority();
    String host = authority == null ? "localhost" : authority.toString();
    return ctx.request().scheme() + "://" + host;
  }
}
