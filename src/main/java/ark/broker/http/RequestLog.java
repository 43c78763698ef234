package ark.broker.http;

import ark.broker.logging.BrokerLogConfigurator;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * First handler of every request: gives it an id (the caller's {@code X-Request-ID} when it is sane),
 * echoes the id, and when the response ends records the latency and, when {@code http.accessLog} is
 * on, writes one access-log line. Each instance serves one event loop.
 */
final class RequestLog implements Handler<RoutingContext> {
  static final String HEADER = "X-Request-ID";
  private static final Logger ACCESS = LoggerFactory.getLogger(BrokerLogConfigurator.ACCESS_LOGGER);
  private static final int MAX_ID_LENGTH = 128;
  private static final String KEY = "requestId";
  /**
   * The query parameters the routes read, whose values the access log shows. Any other parameter's value may be
   * anything, a credential under any name ({@code ?bearer=}, {@code ?pass=}, an emailed answer link's {@code token}):
   * the log keeps its name only.
   */
  private static final Set<String> SHOWN = Set.of(
      // the questions, their watch and the audit trail
      "status", "sender", "recipient", "priority", "q", "order", "watch", "resourceVersion", "limit", "continue",
      "reason", "since",
      // Ark's broker routes
      "conversation_id", "query_id", "session_id", "cursor", "from-beginning", "wait-for-query", "max-chunk-size",
      "sort", "search", "dateFrom", "dateTo");
  /** Clients choose method names: only standard ones become tags, so metrics stay bounded. */
  private static final Set<HttpMethod> STANDARD_METHODS = Set.of(HttpMethod.GET, HttpMethod.HEAD,
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
        ACCESS.info("{} {} {} {} ms [request {}]", method, withoutCredentials(ctx.request().uri()), status,
            nanos / 1_000_000, id);
      }
    });
    ctx.next();
  }

  /** The request target, the value of each parameter not {@link #SHOWN} replaced by {@code [redacted]}. */
  static String withoutCredentials(String uri) {
    int query = uri.indexOf('?');
    if (query < 0) {
      return uri;
    }
    StringBuilder logged = new StringBuilder(uri.length()).append(uri, 0, query + 1);
    String[] parameters = uri.substring(query + 1).split("&", -1);
    for (int i = 0; i < parameters.length; i++) {
      String parameter = parameters[i];
      int equals = parameter.indexOf('=');
      String name = equals < 0 ? parameter : parameter.substring(0, equals);
      logged.append(i == 0 ? "" : "&").append(equals < 0 || SHOWN.contains(decoded(name)) ? parameter
          : name + "=[redacted]");
    }
    return logged.toString();
  }

  /** A parameter name as the server reads it ({@code access%5Ftoken} is {@code access_token}). */
  private static String decoded(String name) {
    try {
      return java.net.URLDecoder.decode(name, java.nio.charset.StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return name;
    }
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
