package ark.broker.contract;

import ark.broker.testing.TestBroker.Response;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the contract checks share: fresh ids, the error envelope, the bodies Ark's callers send (which the load
 * generator, {@code ark.broker.bench.ArkBrokerLoad}, sends too).
 */
public final class Checks {
  /** An ISO-8601 UTC timestamp, as JavaScript's Date parses it (upstream writes milliseconds: toISOString). */
  static final String ISO_INSTANT = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?Z";

  private Checks() {
  }

  /** An id no other check uses, so checks sharing a broker do not see each other's data. */
  static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 13);
  }

  /**
   * The error envelope {@code {"error":{"code","message","requestId"}}} with {@code status} and upstream's
   * {@code code} (VALIDATION_ERROR, PAGINATION_ERROR, NOT_FOUND: no caller branches on it, but issue 26 asks for the
   * same envelope), as JSON, its requestId the response's X-Request-ID; returns the error's message.
   */
  static String assertError(Response response, int status, String code) {
    assertThat(response.status()).as("status of %s", response).isEqualTo(status);
    assertThat(response.header("Content-Type")).as("content type of %s", response).startsWith("application/json");
    JsonObject error = response.json().getJsonObject("error");
    assertThat(error).as("error envelope of %s", response).isNotNull();
    assertThat(error.getString("code")).as("error code of %s", response).isEqualTo(code);
    assertThat(error.getString("message")).as("error message of %s", response).isNotBlank();
    assertThat(error.getString("requestId")).as("requestId of %s", response).isEqualTo(response.header("X-Request-ID"));
    return error.getString("message");
  }

  /** {@code 200 {"status":"success","message":message}}, what every DELETE route answers. */
  static void assertSuccess(Response response, String message) {
    assertThat(response.status()).as("status of %s", response).isEqualTo(200);
    assertThat(response.json()).isEqualTo(new JsonObject().put("status", "success").put("message", message));
  }

  /** A paginated list's items, each checked to be an object. */
  static List<JsonObject> items(Response response) {
    assertThat(response.status()).as("status of %s", response).isEqualTo(200);
    JsonArray items = response.json().getJsonArray("items");
    assertThat(items).as("items of %s", response).isNotNull();
    return items.stream().map(JsonObject.class::cast).toList();
  }

  /**
   * The cursor an item carries for resuming its watch: its numeric {@code sequence}, as upstream's messages carry
   * theirs (upstream's events and spans carry none; issue 27 asks that every watch's items carry one).
   */
  static long cursorOf(JsonObject item) {
    Object sequence = item.getValue("sequence");
    assertThat(sequence).as("the cursor ('sequence') of %s", item).isInstanceOf(Number.class);
    return ((Number) sequence).longValue();
  }

  /** The item as upstream renders it: without the cursor a broker beyond upstream adds. */
  static JsonObject withoutCursor(JsonObject item) {
    JsonObject copy = item.copy();
    copy.remove("sequence");
    return copy;
  }

  /** {@code POST /messages}'s body as the Go executor sends it. */
  public static String messages(String conversation, String query, JsonObject... messages) {
    return new JsonObject().put("conversation_id", conversation).put("query_id", query)
        .put("messages", new JsonArray(List.of((Object[]) messages))).encode();
  }

  public static JsonObject chat(String role, String content) {
    return new JsonObject().put("role", role).put("content", content);
  }

  /** An OpenAI chat.completion.chunk with an {@code ark} block, as the executors stream them. */
  public static JsonObject chunk(String query, String content) {
    return new JsonObject().put("id", query).put("object", "chat.completion.chunk").put("created", 1).put("model", "m")
        .put("choices", new JsonArray().add(new JsonObject().put("index", 0)
            .put("delta", new JsonObject().put("content", content))))
        .put("ark", new JsonObject().put("query", query).put("session", "s-" + query));
  }

  /** An error chunk as the Go executor streams one when the LLM call fails. */
  static JsonObject errorChunk(String query) {
    return new JsonObject().put("error", new JsonObject().put("message", "boom").put("type", "server_error")
        .put("code", "x")).put("ark", new JsonObject().put("query", query));
  }

  /**
   * An operation event as Ark's controller posts it ({@code BrokerEventEmitter}): {@code data} is a string map with
   * the Query's UID, name, namespace and session, and the operation's own timestamp.
   */
  public static JsonObject controllerEvent(String reason, String queryUid, String queryName, String session, Instant at) {
    String timestamp = at.toString();
    return new JsonObject().put("timestamp", timestamp).put("eventType", reason.endsWith("Error") ? "Warning" : "Normal")
        .put("reason", reason).put("message", reason + " (timestamp: " + timestamp + ")")
        .put("data", new JsonObject().put("queryId", queryUid).put("queryName", queryName)
            .put("queryNamespace", "default").put("sessionId", session).put("agent", "agent-" + queryName)
            .put("targetType", "agent").put("conversationId", "conv-" + queryName).put("timestamp", timestamp)
            .put("message", reason));
  }

  /** The controller's QueryExecutionStart of Query "q-1" (UID {@code queryUid}) in {@code session}, now. */
  static JsonObject started(String queryUid, String session) {
    return controllerEvent("QueryExecutionStart", queryUid, "q-1", session, Instant.now());
  }

  /** The controller's QueryExecutionComplete of Query "q-1" (UID {@code queryUid}) in {@code session}, now. */
  static JsonObject completed(String queryUid, String session) {
    return controllerEvent("QueryExecutionComplete", queryUid, "q-1", session, Instant.now());
  }
}
