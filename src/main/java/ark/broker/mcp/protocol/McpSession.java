package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;

import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the server remembers of a client between its requests. Stored durably and shared by every
 * replica, so any replica can serve any request of the session.
 *
 * @param owner who initialized the session ({@link ClientAuthentication.ClientIdentity#owner()}): only they may
 *     use it
 * @param clientInfo the client's {@code clientInfo}, as compact JSON text: a session in memory costs
 *     about what its stored form does, whatever shape the client gave it
 * @param clientCapabilities the client's {@code capabilities}, as compact JSON text
 * @param logLevel the lowest level of {@code notifications/message} the client wants, or null for all
 * @param subscriptions resource URIs the client subscribed to
 * @param savedAt when the session was last saved: a session in use is saved now and then, so the store
 *     can tell it from an abandoned one
 */
public record McpSession(String id, String owner, String protocolVersion, String clientInfo, String clientCapabilities,
                         String logLevel, Set<String> subscriptions, Instant createdAt, Instant savedAt) {

  public McpSession {
    subscriptions = Set.copyOf(subscriptions);
  }

  /** The name the client gives in its {@code clientInfo}, or "" if none. */
  public String clientName() {
    try {
      return McpJson.MAPPER.readTree(clientInfo).path("name").asText("");
    } catch (java.io.IOException e) {
      return "";
    }
  }

  public McpSession withLogLevel(String level) {
    return new McpSession(id, owner, protocolVersion, clientInfo, clientCapabilities, level, subscriptions, createdAt, savedAt);
  }

  public McpSession withSubscription(String uri, boolean subscribed) {
    Set<String> changed = new TreeSet<>(subscriptions);
    if (subscribed) {
      changed.add(uri);
    } else {
      changed.remove(uri);
    }
    return new McpSession(id, owner, protocolVersion, clientInfo, clientCapabilities, logLevel, changed, createdAt, savedAt);
  }

  public McpSession savedAt(Instant now) {
    return new McpSession(id, owner, protocolVersion, clientInfo, clientCapabilities, logLevel, subscriptions, createdAt, now);
  }

  public String toJson() {
    ObjectNode json = McpJson.object()
        .put("id", id)
        .put("owner", owner)
        .put("protocolVersion", protocolVersion)
        .put("createdAt", createdAt.toString())
        .put("savedAt", savedAt.toString());
    json.putRawValue("clientInfo", new RawValue(clientInfo));
    json.putRawValue("clientCapabilities", new RawValue(clientCapabilities));
    if (logLevel != null) {
      json.put("logLevel", logLevel);
    }
    ArrayNode uris = json.putArray("subscriptions");
    subscriptions.forEach(uris::add);
    return McpJson.write(json);
  }

  public static McpSession fromJson(String text) {
    try {
      JsonNode json = McpJson.MAPPER.readTree(text);
      Set<String> subscriptions = new TreeSet<>();
      json.path("subscriptions").forEach(uri -> subscriptions.add(uri.asText()));
      // A session saved before sessions had owners belongs to no one: its client starts a new one.
      return new McpSession(json.get("id").asText(), json.path("owner").asText(""), json.get("protocolVersion").asText(),
          McpJson.write(json.get("clientInfo")), McpJson.write(json.get("clientCapabilities")),
          json.hasNonNull("logLevel") ? json.get("logLevel").asText() : null, subscriptions,
          Instant.parse(json.get("createdAt").asText()),
          Instant.parse(json.path("savedAt").asText(json.get("createdAt").asText())));
    } catch (java.io.IOException e) {
      throw new IllegalStateException("stored MCP session is not readable", e);
    }
  }
}
