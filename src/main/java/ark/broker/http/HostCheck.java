package ark.broker.http;

import ark.broker.web.HostPolicy;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/** Refuses (403) a request that names a host or comes from a browser origin the API does not answer to. */
record HostCheck(HostPolicy policy) implements Handler<RoutingContext> {
  @Override
  public void handle(RoutingContext ctx) {
    var authority = ctx.request().authority();
    String host = authority == null ? null : authority.toString();
    String refusal = policy.refusal(host, ctx.request().getHeader("Origin"));
    if (refusal != null) {
      ctx.fail(new HttpProblem(403, refusal));
      return;
    }
    ctx.next();
  }
}
