package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The identity of a request's SSE stream, carried in every event id as {@code <token>.<sequence>}.
 * For a resumable request the token says how to finish it ({@code kind} and {@code state}), so a
 * client whose stream was cut resumes with GET and Last-Event-ID on any replica, even one that has
 * never seen the request. Standalone GET streams use the token {@code g}.
 *
 * <p>A token is {@code <payload>.<mac>}: the payload is base64url JSON, the MAC an HMAC by the
 * {@link StreamTokenKeys} over the payload, the session's id and the session's owner. Clients can forge
 * anything else, so {@link #decode} accepts only a payload signed for the very session (and principal) that
 * resumes, with exactly the fields a token has; the server then checks the kind and the state (its resumer's
 * shape), and the resumer decides again, as a read would, whether the caller may see what it names.
 *
 * @param progressToken the request's progress token, so a resumed stream keeps reporting progress
 */
public record StreamToken(JsonNode requestId, String kind, JsonNode state, JsonNode progressToken) {
  public static final String STANDALONE = "g";
  private static final Set<String> FIELDS = Set.of("i", "k", "s", "p");
  private static final Pattern SEQUENCE = Pattern.compile("[0-9]{1,18}");
  private static final String NOT_ISSUED = "its stream part is not a token this server issued to this session";

  /** The token, signed for {@code session}. */
  String encode(StreamTokenKeys keys, McpSession session) {
    ObjectNode json = McpJson.object();
    json.set("i", requestId);
    json.put("k", kind);
    if (state != null) {
      json.set("s", state);
    }
    if (progressToken != null) {
      json.set("p", progressToken);
    }
    String payload = Base64.getUrlEncoder().withoutPadding()
        .encodeToString(McpJson.write(json).getBytes(StandardCharsets.UTF_8));
    return payload + "." + keys.sign(payload, session);
  }

  /** Whether the event id is one of a standalone GET stream, {@code g.<sequence>}. */
  public static boolean isStandalone(String eventId) {
    return eventId.startsWith(STANDALONE + ".") && SEQUENCE.matcher(eventId.substring(2)).matches();
  }

  /**
   * The token of an event id of a resumable request stream that this server issued to {@code session}.
   *
   * @throws IllegalArgumentException saying why the event id is not one (for the client: no stack trace)
   */
  static StreamToken decode(String eventId, StreamTokenKeys keys, McpSession session) {
    String[] parts = eventId.split("\\.", -1);
    if (parts.length != 3 || !SEQUENCE.matcher(parts[2]).matches()) {
      throw refused("it is not <stream>.<signature>.<sequence>");
    }
    if (!keys.verifies(parts[0], parts[1], session)) {
      throw refused(NOT_ISSUED);
    }
    JsonNode json;
    try {
      json = McpJson.MAPPER.readTree(Base64.getUrlDecoder().decode(parts[0]));
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw refused(NOT_ISSUED);
    }
    if (json == null || !json.isObject()) {
      throw refused(NOT_ISSUED);
    }
    json.fieldNames().forEachRemaining(field -> {
      if (!FIELDS.contains(field)) {
        throw refused("its token has an unknown field");
      }
    });
    JsonNode id = json.get("i");
    JsonNode kind = json.get("k");
    JsonNode progress = json.get("p");
    if (id == null || !(id.isTextual() || id.isIntegralNumber())) {
      throw refused("its token has no request id");
    }
    if (kind == null || !kind.isTextual()) {
      throw refused("its token has no kind");
    }
    if (progress != null && !(progress.isTextual() || progress.isNumber())) {
      throw refused("its token's progress token is neither a string nor a number");
    }
    return new StreamToken(id, kind.textValue(), json.get("s"), progress);
  }

  private static IllegalArgumentException refused(String why) {
    return new IllegalArgumentException("cannot resume from this event id: " + why);
  }
}
