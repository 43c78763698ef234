package ark.broker.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import io.fabric8.zjsonpatch.JsonPatch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fabric8's mock API server (expectations first, then CRUD, as its mixed dispatcher does), refusing with 422, as
 * the API server does, a create, update or patch of an Ark resource whose result breaks its CRD's schema. Each
 * refusal is also kept, for the test to fail on with what was wrong.
 */
final class SchemaCheckedDispatcher extends Dispatcher {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern ARK_OBJECT = Pattern.compile(
      "/apis/ark\\.mckinsey\\.com/v1alpha1/namespaces/([^/]+)/([^/?]+)(?:/([^/?]+))?(/status)?(?:\\?.*)?");

  private final Map<ServerRequest, Queue<ServerResponse>> expectations;
  private final MockDispatcher expected;
  private final KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher();
  private final Map<String, CrdSchema> schemas = new ConcurrentHashMap<>();
  private final List<String> refused = new CopyOnWriteArrayList<>();

  SchemaCheckedDispatcher(Map<ServerRequest, Queue<ServerResponse>> expectations) {
    this.expectations = expectations;
    this.expected = new MockDispatcher(expectations);
  }

  void check(CrdSchema schema) {
    schemas.put(schema.plural, schema);
  }

  /** Every write refused so far, with the request and what the schema says about it. */
  List<String> refused() {
    return List.copyOf(refused);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    Queue<ServerResponse> queued = expectations.get(new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
    if (queued != null && !queued.isEmpty()) {
      return expected.dispatch(request);
    }
    Matcher path = ARK_OBJECT.matcher(request.getPath());
    String method = request.getMethod();
    if (!path.matches() || !schemas.containsKey(path.group(2)) || !List.of("POST", "PUT", "PATCH").contains(method)) {
      return crud.dispatch(request);
    }
    JsonNode result = result(request, method, path);
    List<String> violations = schemas.get(path.group(2)).violations(result);
    if (!violations.isEmpty()) {
      String why = method + " " + request.getPath() + " " + body(request) + " -> " + violations;
      refused.add(why);
      return new MockResponse().setResponseCode(422).setBody(
          "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Invalid\",\"code\":422,"
              + "\"message\":" + JSON.valueToTree(why) + "}");
    }
    if (method.equals("PATCH") && isMergePatch(request)) {
      String precondition = read(body(request)).path("metadata").path("resourceVersion").asText("");
      String current = current(request, path).path("metadata").path("resourceVersion").asText("");
      if (!precondition.isEmpty() && !precondition.equals(current)) {
        return new MockResponse().setResponseCode(409).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\","
            + "\"status\":\"Failure\",\"reason\":\"Conflict\",\"code\":409,\"message\":\"the object has been modified\"}");
      }
      return crud.dispatch(asUpdate(request, result));
    }
    return crud.dispatch(request);
  }

  private JsonNode current(RecordedRequest request, Matcher path) {
    MockResponse current = crud.handleGet(request.getPath().substring(0, path.end(3)));
    return current.code() == 200 ? read(current.getBody().readUtf8()) : JSON.createObjectNode();
  }

  private static boolean isMergePatch(RecordedRequest request) {
    String type = request.getHeader("Content-Type");
    return type != null && type.startsWith("application/merge-patch+json");
  }

  /**
   * A merge patch as the update of its RFC 7386 result, because the CRUD mock merges lists item by item, where the
   * API server replaces them: an atomic list such as {@code status.conditions} would grow instead of being rewritten.
   * The update carries the version it is based on, so the patch's own precondition is checked before.
   */
  private static RecordedRequest asUpdate(RecordedRequest patch, JsonNode result) {
    Headers headers = patch.getHeaders().newBuilder().set("Content-Type", "application/json").build();
    return new RecordedRequest(patch.getHttpVersion(), HttpMethod.PUT, patch.getPath().replaceFirst("\\?.*", ""),
        headers, new Buffer(result.toString().getBytes(StandardCharsets.UTF_8)));
  }

  /** The object as it would be after the write. */
  private JsonNode result(RecordedRequest request, String method, Matcher path) {
    JsonNode body = read(body(request));
    if (method.equals("POST") || method.equals("PUT")) {
      return body;
    }
    JsonNode now = current(request, path);
    String type = request.getHeader("Content-Type");
    return type != null && type.startsWith("application/json-patch+json") ? JsonPatch.apply(body, now) : mergePatch(now, body);
  }

  /** The body, left for the CRUD dispatcher to read (reading it through the request would consume it). */
  private static String body(RecordedRequest request) {
    return new String(request.getBody().getBytes(), StandardCharsets.UTF_8);
  }

  /** RFC 7386. */
  static JsonNode mergePatch(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch;
    }
    ObjectNode result = target.isObject() ? ((ObjectNode) target).deepCopy() : JSON.createObjectNode();
    for (Map.Entry<String, JsonNode> field : patch.properties()) {
      if (field.getValue().isNull()) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), mergePatch(result.path(field.getKey()), field.getValue()));
      }
    }
    return result;
  }

  private static JsonNode read(String json) {
    try {
      return JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void shutdown() {
    expected.shutdown();
    crud.shutdown();
  }
}
