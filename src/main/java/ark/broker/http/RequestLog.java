package ark.broker.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * First handler of every request: gives it an id (the caller's {@code X-Request-ID} when it is sane),
 * echoes the id, and when the response ends records the latency and, when {@code http.accessLog} is
 * on, writes one access-log line. Each instance serves one event loop.
 */
final class RequestLog implements Handler<RoutingContext> {
  static final String HEADER = "X-Request-ID";
  private static final Logger ACCESS = LoggerFactory.getLogger("ark.broker.http.access");
  private static final int MAX_ID_LENGTH = 128;
  private static final String KEY = "requestId";
  /** An emailed answer link's token is a credential: the access log keeps the link without it. */
  private static final Pattern TOKEN = Pattern.compile("(?<=[?&]token=)[^&]*");
  /** Clients choose method names: only standard ones become tags, so metrics stay bounded. */
  private static final java.util.Set<HttpMethod> STANDARD_METHODS = java.util.Set.of(HttpMethod.GET, HttpMethod.HEAD,
      HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH, HttpMethod.DELETE, HttpMethod.OPTIONS);

  private final MeterRegistry meters;
  private final boolean accessLog;
  /** Registering a timer builds and sorts its tags: done once per method, route and status, not per request. */
  private final Map<TimerKey, Timer> timers = new HashMap<>();

  private record TimerKey(String method, String route, int status) {
  }

  RequestLog(MeterRegistry meters, boolean accessLog) {
    this.meters = meters;
    this.accessLog = accessLog;
  }

  static String requestId(RoutingContext ctx) {
    return ctx.get(KEY);
  }

  @Override
  public void handle(RoutingContext ctx) {
    String given = ctx.request().getHeader(HEADER);
    String id = given != null && isSane(given) ? given : newId();
    ctx.put(KEY, id);
    ctx.response().putHeader(HEADER, id);
    long started = System.nanoTime();
    ctx.addEndHandler(ended -> {
      long nanos = System.nanoTime() - started;
      int status = ctx.response().getStatusCode();
      String route = ctx.currentRoute() == null || ctx.currentRoute().getPath() == null
          ? "other" : ctx.currentRoute().getPath();
      HttpMethod method = ctx.request().method();
      timer(new TimerKey(STANDARD_METHODS.contains(method) ? method.name() : "OTHER", route, status))
          .record(nanos, TimeUnit.NANOSECONDS);
      if (accessLog && ACCESS.isInfoEnabled()) {
        // An email answer link carries its credential in the query: never in a log.
        ACCESS.info("{} {} {} {} ms [request {}]", method, TOKEN.matcher(ctx.request().uri()).replaceAll("[redacted]"),
            status, nanos / 1_000_000, id);
      }
    });
    ctx.next();
  }

  private Timer timer(TimerKey key) {
    return timers.computeIfAbsent(key, ignored -> Timer.builder("ark_broker_http_requests")
        .description("REST requests by route and status")
        .tag("method", key.method())
        .tag("route", key.route())
        .tag("status", Integer.toString(key.status()))
        .publishPercentileHistogram()
        .register(meters));
  }

  /** Up to 128 of {@code A-Z a-z 0-9 . _ : @ + = / -}: safe to echo and to log. */
  private static boolean isSane(String id) {
    if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
          || "._:@+=/-".indexOf(c) >= 0;
      if (!allowed) {
        return false;
      }
    }
    return true;
  }

  /** A random UUID (version 4) without SecureRandom's lock: a request id correlates log lines, it guards nothing. */
  private static String newId() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    long high = (random.nextLong() & ~0xF000L) | 0x4000L;
    long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
    return new UUID(high, low).toString();
  }
}
