package ark.broker.channel;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.vertx.core.json.JsonObject;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Predicate;

/**
 * A real HTTP server on loopback playing an outside service (Slack's Web API, GitHub's REST API, a
 * webhook receiver). It records every request it receives and answers what its responder says.
 */
public class FakeService implements AutoCloseable {
  /** A request as the service received it. */
  public record Received(String method, String path, Map<String, String> query, Map<String, String> headers, String body, Instant at) {
    public JsonObject json() {
      return new JsonObject(body);
    }

    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  record Reply(int status, Map<String, String> headers, String body) {
    static Reply json(int status, JsonObject body) {
      return new Reply(status, Map.of("Content-Type", "application/json"), body.encode());
    }
  }

  interface Responder {
    Reply reply(Received request) throws Exception;
  }

  private final HttpServer server;
  private final Responder responder;
  private final List<Received> received = new CopyOnWriteArrayList<>();

  FakeService(Responder responder) throws IOException {
    this.responder = responder;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/", exchange -> {
      try (exchange) {
        Received request = read(exchange);
        Reply reply = reply(request);
        // Only now: a test that saw the request may look at what the service did with it.
        received.add(request);
        beforeReplying(request, reply);
        reply.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        }
      } catch (Exception e) {
        exchange.sendResponseHeaders(599, -1);
      }
    });
    server.start();
  }

  /** What to answer; a fake service of its own kind answers here instead of through a responder. */
  Reply reply(Received request) throws Exception {
    return responder.reply(request);
  }

  /** Called once the request is done and recorded, before its reply goes out. */
  void beforeReplying(Received request, Reply reply) throws InterruptedException {
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  List<Received> received(String method, String path) {
    return received.stream().filter(r -> r.method().equals(method) && r.path().equals(path)).toList();
  }

  /** Waits (polling, up to the deadline) until a received request matches. */
  public Received await(Predicate<Received> wanted, Duration within) throws InterruptedException {
    Instant deadline = Instant.now().plus(within);
    while (Instant.now().isBefore(deadline)) {
      for (Received request : received) {
        if (wanted.test(request)) {
          return request;
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no matching request within " + within + "; received " + received.stream()
        .map(r -> r.method() + " " + r.path()).toList());
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private static Received read(HttpExchange exchange) throws IOException {
    Map<String, String> headers = new HashMap<>();
    exchange.getRequestHeaders().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
    Map<String, String> query = new HashMap<>();
    String raw = exchange.getRequestURI().getRawQuery();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int equals = pair.indexOf('=');
        query.put(URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8),
            equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
      }
    }
    String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    return new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), query, headers, body, Instant.now());
  }
}
