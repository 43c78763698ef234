package ark.broker.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * First handler of every request: gives it an id (the caller's {@code X-Request-ID} when it is sane),
 * echoes the id, and when the response ends writes one access-log line and records the latency.
 */
final class RequestLog implements Handler<RoutingContext> {
  static final String HEADER = "X-Request-ID";
  private static final Logger ACCESS = LoggerFactory.getLogger("ark.broker.http.access");
  private static final Pattern SANE_ID = Pattern.compile("[A-Za-z0-9._:@+=/-]{1,128}");
  private static final String KEY = "requestId";
  /** An emailed answer link's token is a credential: the access log keeps the link without it. */
  private static final Pattern TOKEN = Pattern.compile("(?<=[?&]token=)[^&]*");
  /** Clients choose method names: only standard ones become tags, so metrics stay bounded. */
  private static final java.util.Set<String> STANDARD_METHODS =
      java.util.Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");

  private final MeterRegistry meters;

  RequestLog(MeterRegistry meters) {
    this.meters = meters;
  }

  static String requestId(RoutingContext ctx) {
    return ctx.get(KEY);
  }

  @Override
  public void handle(RoutingContext ctx) {
    String given = ctx.request().getHeader(HEADER);
    String id = given != null && SANE_ID.matcher(given).matches() ? given : UUID.randomUUID().toString();
    ctx.put(KEY, id);
    ctx.response().putHeader(HEADER, id);
    long started = System.nanoTime();
    ctx.addEndHandler(ended -> {
      long nanos = System.nanoTime() - started;
      int status = ctx.response().getStatusCode();
      String route = ctx.currentRoute() == null || ctx.currentRoute().getPath() == null
          ? "other" : ctx.currentRoute().getPath();
      Timer.builder("ark_broker_http_requests")
          .description("REST requests by route and status")
          .tag("method", STANDARD_METHODS.contains(ctx.request().method().name()) ? ctx.request().method().name() : "OTHER")
          .tag("route", route)
          .tag("status", Integer.toString(status))
          .publishPercentileHistogram()
          .register(meters)
          .record(nanos, TimeUnit.NANOSECONDS);
      if (ACCESS.isInfoEnabled()) {
        ACCESS.info("{} {} {} {} ms [request {}]", ctx.request().method(), TOKEN.matcher(ctx.request().uri()).replaceAll("[redacted]"), status,
            nanos / 1_000_000, id);
      }
    });
    ctx.next();
  }
}
