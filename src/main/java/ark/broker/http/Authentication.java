package ark.broker.http;

import ark.broker.auth.Actor;
import ark.broker.auth.AuthFailure;
import ark.broker.auth.Authenticators;
import io.vertx.core.Handler;
import io.vertx.core.net.SocketAddress;
import io.vertx.ext.web.RoutingContext;

/**
 * The REST surface's door: turns the request's bearer token (and the {@code X-Ark-Agent} it may name) into the
 * {@link Actor} every route then acts as, or refuses it (401 with the challenge of RFC 6750 and RFC 9728, 403
 * for an agent it may not act for, 503 when the identity provider cannot be asked).
 */
final class Authentication implements Handler<RoutingContext> {
  static final String AGENT_HEADER = "X-Ark-Agent";
  private static final String ACTOR = "ark.actor";

  private final Authenticators authenticators;
  private final boolean clusterCallers;

  /**
   * @param clusterCallers whether a request without a token from {@code auth.clusterNetworks} is Ark's in-cluster
   *     caller (the routes of Ark's broker) rather than refused (every other route)
   */
  Authentication(Authenticators authenticators, boolean clusterCallers) {
    this.authenticators = authenticators;
    this.clusterCallers = clusterCallers;
  }

  @Override
  public void handle(RoutingContext ctx) {
    SocketAddress client = ctx.request().remoteAddress();
    String address = client == null ? null : client.hostAddress();
    String authorization = ctx.request().getHeader("Authorization");
    Actor clusterCaller = clusterCallers && authorization == null ? authenticators.clusterCaller(address) : null;
    if (clusterCaller != null) {
      accept(ctx, clusterCaller, address);
      ctx.next();
      return;
    }
    // Deciding may take a worker thread's time: the body waits unread for the handlers after this one.
    ctx.request().pause();
    authenticators.authenticate(ctx.vertx(), authorization, ctx.request().getHeader(AGENT_HEADER))
        .onSuccess(actor -> {
          accept(ctx, actor, address);
          ctx.request().resume();
          ctx.next();
        })
        .onFailure(failure -> {
          if (failure instanceof AuthFailure refused) {
            String challenge = refused.challenge(ProtectedResource.metadataUrl(ctx));
            if (challenge != null) {
              ctx.response().putHeader("WWW-Authenticate", challenge);
            }
          }
          ctx.request().resume();
          ctx.fail(failure);
        });
  }

  private static void accept(RoutingContext ctx, Actor actor, String address) {
    ctx.put(ACTOR, actor.from(address, ctx.request().getHeader("User-Agent")).inRequest(RequestLog.requestId(ctx)));
  }

  /** Who the request acts as; only for routes behind this handler. */
  static Actor actor(RoutingContext ctx) {
    Actor actor = ctx.get(ACTOR);
    if (actor == null) {
      throw new IllegalStateException("route " + ctx.request().path() + " is not behind Authentication");
    }
    return actor;
  }
}
