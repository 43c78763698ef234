package ark.broker.contract;

import ark.broker.testing.TestBroker.Response;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Calls one replica of the broker under test the way Ark's callers do: plain HTTP/1.1, JSON or NDJSON bodies. */
public final class ArkHttp {
  private static final Duration ANSWER_WITHIN = Duration.ofSeconds(15);

  private final URI base;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  ArkHttp(URI base) {
    this.base = base;
  }

  public URI base() {
    return base;
  }

  public URI uri(String pathAndQuery) {
    return base.resolve(pathAndQuery);
  }

  public Response get(String path) throws Exception {
    return send(request(path).GET());
  }

  public Response delete(String path) throws Exception {
    return send(request(path).DELETE());
  }

  /** A POST with a JSON body, as Ark's Go and Python clients send it. */
  public Response postJson(String path, String json) throws Exception {
    return post(path, "application/json", json.getBytes(StandardCharsets.UTF_8));
  }

  public Response post(String path, String contentType, byte[] body) throws Exception {
    return send(request(path).header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  public HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(uri(path)).timeout(ANSWER_WITHIN);
  }

  public Response send(HttpRequest.Builder request) throws Exception {
    HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Response(response.statusCode(), response.headers().map(), response.body());
  }

  /** A GET whose answer is an event stream, read line by line; waits up to 10 s for its headers. */
  public EventStreamLines watch(String path) throws Exception {
    return watchAsync(path).get(10, TimeUnit.SECONDS);
  }

  /**
   * The same, without waiting for the headers: upstream's {@code GET /stream/{query}} sends none before its first
   * chunk, so a reader that waits for them before producing would wait forever.
   */
  public CompletableFuture<EventStreamLines> watchAsync(String path) {
    HttpRequest request = HttpRequest.newBuilder(uri(path)).header("Accept", "text/event-stream").GET().build();
    return http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream()).thenApply(EventStreamLines::new);
  }
}
