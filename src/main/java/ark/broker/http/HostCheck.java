package ark.broker.http;

import ark.broker.edge.HostPolicy;
import ark.broker.edge.RequestAuthority;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * Refuses (403) a request that names a host (in {@code Host}, or in an absolute-form target) or comes from a
 * browser origin the API does not answer to.
 */
record HostCheck(HostPolicy policy) implements Handler<RoutingContext> {
  @Override
  public void handle(RoutingContext ctx) {
    String refusal = policy.refusal(RequestAuthority.of(ctx.request()), ctx.request().getHeader("Origin"));
    if (refusal != null) {
      ctx.fail(new HttpProblem(403, refusal));
      return;
    }
    ctx.next();
  }
}
