package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The identity of a request's SSE stream, carried in every event id as {@code <token>.<sequence>}.
 * For a resumable request the token says how to finish it ({@code kind} and {@code state}), so a
 * client whose stream was cut resumes with GET and Last-Event-ID on any replica, even one that has
 * never seen the request. Standalone GET streams use the token {@code g}.
 *
 * <p>Clients can forge tokens, so {@link #decode} accepts only exactly the fields a token has, and the
 * server checks the kind, the state (its resumer's shape) and the session before it resumes anything.
 *
 * @param progressToken the request's progress token, so a resumed stream keeps reporting progress
 * @param session the {@link #sessionTag tag} of the session whose stream it is
 */
public record StreamToken(JsonNode requestId, String kind, JsonNode state, JsonNode progressToken, String session) {
  public static final String STANDALONE = "g";
  private static final Set<String> FIELDS = Set.of("i", "k", "s", "p", "n");
  private static final Pattern SEQUENCE = Pattern.compile("[0-9]{1,18}");

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
    json.put("n", session);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(McpJson.write(json).getBytes(StandardCharsets.UTF_8));
  }

  /** Whether the event id is one of a standalone GET stream, {@code g.<sequence>}. */
  public static boolean isStandalone(String eventId) {
    return eventId.startsWith(STANDALONE + ".") && SEQUENCE.matcher(eventId.substring(2)).matches();
  }

  /**
   * The token of an event id of a resumable request stream.
   *
   * @throws IllegalArgumentException saying why the event id is not one (for the client: no stack trace)
   */
  public static StreamToken decode(String eventId) {
    int dot = eventId.lastIndexOf('.');
    if (dot <= 0 || !SEQUENCE.matcher(eventId.substring(dot + 1)).matches()) {
      throw refused("it is not <stream>.<sequence>");
    }
    JsonNode json;
    try {
      json = McpJson.MAPPER.readTree(Base64.getUrlDecoder().decode(eventId.substring(0, dot)));
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw refused("its stream part is not a token this server issued");
    }
    if (json == null || !json.isObject()) {
      throw refused("its stream part is not a token this server issued");
    }
    json.fieldNames().forEachRemaining(field -> {
      if (!FIELDS.contains(field)) {
        throw refused("its token has an unknown field");
      }
    });
    JsonNode id = json.get("i");
    JsonNode kind = json.get("k");
    JsonNode progress = json.get("p");
    JsonNode session = json.get("n");
    if (id == null || !(id.isTextual() || id.isIntegralNumber())) {
      throw refused("its token has no request id");
    }
    if (kind == null || !kind.isTextual() || session == null || !session.isTextual()) {
      throw refused("its token has no kind or session");
    }
    if (progress != null && !(progress.isTextual() || progress.isNumber())) {
      throw refused("its token's progress token is neither a string nor a number");
    }
    return new StreamToken(id, kind.textValue(), json.get("s"), progress, session.textValue());
  }

  /**
   * What a token says of its session: the start of a hash of the id, so a token names its session
   * without carrying the secret id itself.
   */
  public static String sessionTag(String sessionId) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(sessionId.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(hash).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  private static IllegalArgumentException refused(String why) {
    return new IllegalArgumentException("cannot resume from this event id: " + why);
  }
}
