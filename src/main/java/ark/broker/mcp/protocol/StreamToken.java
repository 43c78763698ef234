package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The identity of a request's SSE stream, carried in every event id as {@code <token>.<sequence>}.
 * For a resumable request the token says how to finish it ({@code kind} and {@code state}), so a
 * client whose stream was cut resumes with GET and Last-Event-ID on any replica, even one that has
 * never seen the request. Standalone GET streams use the token {@code g}.
 *
 * @param progressToken the request's progress token, so a resumed stream keeps reporting progress
 */
public record StreamToken(JsonNode requestId, String kind, JsonNode state, JsonNode progressToken) {
  public static final String STANDALONE = "g";

  public String encode() {
    ObjectNode json = McpJson.object();
    json.set("i", requestId);
    json.put("k", kind);
    if (state != null) {
      json.set("s", state);
    }
    if (progressToken != null) {
      json.set("p", progressToken);
    }
    return Base64.getUrlEncoder().withoutPadding().encodeToString(McpJson.write(json).getBytes(StandardCharsets.UTF_8));
  }

  /** The token of an event id, or null if it is not one of a resumable request stream. */
  public static StreamToken decode(String eventId) {
    int dot = eventId == null ? -1 : eventId.lastIndexOf('.');
    if (dot <= 0 || eventId.startsWith(STANDALONE + ".")) {
      return null;
    }
    try {
      JsonNode json = McpJson.MAPPER.readTree(Base64.getUrlDecoder().decode(eventId.substring(0, dot)));
      JsonNode kind = json.get("k");
      JsonNode id = json.get("i");
      if (kind == null || !kind.isTextual() || id == null || !(id.isTextual() || id.isIntegralNumber())) {
        return null;
      }
      JsonNode progress = json.get("p");
      return new StreamToken(id, kind.textValue(), json.get("s"),
          progress != null && (progress.isTextual() || progress.isNumber()) ? progress : null);
    } catch (java.io.IOException | IllegalArgumentException e) {
      return null;
    }
  }
}
