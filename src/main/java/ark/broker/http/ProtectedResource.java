package ark.broker.http;

import ark.broker.auth.Authenticators;
import ark.broker.edge.RequestAuthority;
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

  /** Only reached past the {@link HostCheck}: the host is one the API answers to, never any a client makes up. */
  private static String baseUrl(RoutingContext ctx) {
    String host = RequestAuthority.of(ctx.request());
    return ctx.request().scheme() + "://" + (host == null ? "localhost" : host);
  }
}
