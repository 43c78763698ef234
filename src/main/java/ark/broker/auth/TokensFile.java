package ark.broker.auth;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Reads the tokens file: {@code {"tokens": [{"sha256": "<hex>", "kind": "agent|human|service|admin",
 * "name": "ark://...", "teams": ["ark://teams/..."], "mayActFor": ["ark://agents/<prefix>*", ...]}]}}.
 *
 * <p>Every error message names the entry and field but never a value from the file: the parser's own messages
 * quote the text around an error, which could be a hash.
 */
final class TokensFile {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> FIELDS = Set.of("sha256", "kind", "name", "teams", "mayActFor", "comment");

  private TokensFile() {
  }

  /** @throws IllegalArgumentException with a message that holds no hash */
  static List<TokenEntry> parse(byte[] content) {
    JsonNode root;
    try {
      root = JSON.readTree(content);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new IllegalArgumentException("not valid JSON" + (at == null ? "" : " (line " + at.getLineNr() + ", column "
          + at.getColumnNr() + ")"));
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("not readable as JSON");
    }
    if (root == null || !root.isObject() || !root.path("tokens").isArray()) {
      throw new IllegalArgumentException("must be an object with a \"tokens\" list");
    }
    List<TokenEntry> entries = new ArrayList<>();
    int index = 0;
    for (JsonNode node : root.get("tokens")) {
      TokenEntry entry = entry(node, "tokens[" + index + "]");
      for (int earlier = 0; earlier < entries.size(); earlier++) {
        if (TokenHash.same(entries.get(earlier).sha256(), entry.sha256())) {
          throw new IllegalArgumentException("tokens[" + index + "] has the same sha256 as tokens[" + earlier + "]");
        }
      }
      entries.add(entry);
      index++;
    }
    return List.copyOf(entries);
  }

  private static TokenEntry entry(JsonNode node, String where) {
    if (!node.isObject()) {
      throw new IllegalArgumentException(where + " must be an object");
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        // A misspelt "mayActFor" or "teams" would silently grant less (or, elsewhere, more) than meant.
        throw new IllegalArgumentException(where + " has an unknown field '" + printable(name) + "'; known: " + FIELDS);
      }
    }
    byte[] hash = TokenHash.parseHex(node.path("sha256").textValue());
    if (hash == null) {
      throw new IllegalArgumentException(where + ".sha256 must be the 64 hex digits of the token's SHA-256");
    }
    List<String> teams = strings(node, "teams", where);
    List<String> mayActFor = strings(node, "mayActFor", where);
    try {
      PrincipalKind kind = PrincipalKind.parse(node.path("kind").textValue());
      Principal principal = new Principal(kind, node.path("name").textValue(), teams, AuthMethod.TOKEN);
      return new TokenEntry(hash, new Grant(principal, new AgentPatterns(mayActFor)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
    }
  }

  private static List<String> strings(JsonNode node, String field, String where) {
    JsonNode list = node.get(field);
    if (list == null || list.isNull()) {
      return List.of();
    }
    if (!list.isArray()) {
      throw new IllegalArgumentException(where + "." + field + " must be a list of strings");
    }
    List<String> values = new ArrayList<>();
    for (JsonNode item : list) {
      if (!item.isTextual()) {
        throw new IllegalArgumentException(where + "." + field + " must be a list of strings");
      }
      values.add(item.textValue());
    }
    return values;
  }

  private static String printable(String text) {
    String shortened = text.length() > 40 ? text.substring(0, 40) + "..." : text;
    return shortened.replaceAll("[^\\x20-\\x7e]", "?");
  }
}
