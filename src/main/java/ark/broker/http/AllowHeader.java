package ark.broker.http;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Names the methods a path serves on a 405, as HTTP asks, before the error goes out: vertx-web answers 405 without
 * an {@code Allow} header. The methods are read from the router's routes, so a route added later is named at once.
 */
final class AllowHeader implements Handler<RoutingContext> {
  private final Router router;
  private final Handler<RoutingContext> error;

  AllowHeader(Router router, Handler<RoutingContext> error) {
    this.router = router;
    this.error = error;
  }

  @Override
  public void handle(RoutingContext ctx) {
    Set<String> allowed = allowed(ctx.request().path());
    if (!allowed.isEmpty() && !ctx.response().headers().contains("Allow")) {
      ctx.response().putHeader("Allow", String.join(", ", allowed));
    }
    error.handle(ctx);
  }

  private Set<String> allowed(String path) {
    Set<String> methods = new TreeSet<>();
    if (path == null) {
      return methods;
    }
    for (Route route : router.getRoutes()) {
      // A route for every method never makes a 405; one by regular expression has no path to compare.
      if (route.getPath() != null && route.methods() != null && !route.methods().isEmpty()
          && matches(route.getPath(), path, route.isExactPath())) {
        route.methods().stream().map(HttpMethod::name).forEach(methods::add);
      }
    }
    return methods;
  }

  /**
   * Whether {@code path} is one of {@code template}'s, segment by segment ({@code :param} takes any); a prefix route
   * ({@code /a/*}) has the path {@code /a/}, whose last, empty segment stands for the rest.
   */
  static boolean matches(String template, String path, boolean exact) {
    List<String> wanted = List.of(template.split("/", -1));
    List<String> given = List.of(path.split("/", -1));
    if (!exact) {
      return given.size() >= wanted.size() - 1 && segmentsMatch(wanted.subList(0, wanted.size() - 1), given);
    }
    return given.size() == wanted.size() && segmentsMatch(wanted, given);
  }

  private static boolean segmentsMatch(List<String> wanted, List<String> given) {
    for (int i = 0; i < wanted.size(); i++) {
      if (!wanted.get(i).startsWith(":") && !wanted.get(i).equals(given.get(i))) {
        return false;
      }
    }
    return true;
  }
}
