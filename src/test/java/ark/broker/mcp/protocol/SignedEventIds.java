package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * Event ids signed as the broker signs them, for tests whose broker has a key they know: what an attacker holding
 * the key (or a bug that hands out tokens) could send, so the checks behind the signature are tested too.
 */
public final class SignedEventIds {
  private SignedEventIds() {
  }

  /**
   * The event id of a resumable stream of {@code kind} waiting for {@code questionId}, signed with {@code key} for
   * the session {@code sessionId} of {@code owner} ({@code "<kind> <name>"}, as the MCP door names principals).
   */
  public static String waitingFor(String key, String sessionId, String owner, String kind, String questionId) {
    Instant now = Instant.now();
    McpSession session = new McpSession(sessionId, owner, "2025-11-25", "{}", "{}", null, Set.of(), now, now);
    JsonNode requestId = McpJson.MAPPER.getNodeFactory().numberNode(1);
    return new StreamToken(requestId, kind, McpJson.object().put("q", questionId), McpJson.MAPPER.getNodeFactory().textNode("p"))
        .encode(StreamTokenKeys.of(List.of(key)), session) + ".1";
  }
}
