package ark.broker.mcp;

import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.question.ArkUri;
import ark.broker.question.InvalidQuestionException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.regex.Pattern;

/**
 * Who is asking and for which Query, from (first found wins) the request's {@code _meta}, then HTTP
 * headers, then the tool's arguments. Ark's executor puts them in {@code _meta}; other hosts can set
 * headers on the connection; a bare client can pass them as arguments.
 *
 * <ul>
 *   <li>agent: {@code _meta["ark.mckinsey.com/agent"]}, header {@code X-Ark-Agent}, argument {@code sender};
 *       else the MCP client's name. A bare name means {@code ark://agents/<name>}.</li>
 *   <li>query: {@code _meta["ark.mckinsey.com/query"]} {@code {namespace, name}}, headers
 *       {@code X-Ark-Query-Namespace} + {@code X-Ark-Query-Name}, argument {@code query}.</li>
 *   <li>tool call: {@code _meta["ark.mckinsey.com/tool-call-id"]}, header {@code X-Ark-Tool-Call-Id},
 *       argument {@code toolCallId}.</li>
 * </ul>
 */
record Caller(String agent, JsonNode query, String toolCallId) {
  static final String META_AGENT = "ark.mckinsey.com/agent";
  static final String META_QUERY = "ark.mckinsey.com/query";
  static final String META_TOOL_CALL = "ark.mckinsey.com/tool-call-id";
  private static final Pattern UNSAFE = Pattern.compile("[^A-Za-z0-9._@+:-]");

  static Caller of(RequestContext ctx, ObjectNode arguments) {
    ObjectNode meta = ctx.meta();
    String agent = firstText(meta.get(META_AGENT), ctx.header("X-Ark-Agent"), arguments.get("sender"));
    JsonNode query = meta.get(META_QUERY);
    if (query == null && ctx.header("X-Ark-Query-Name") != null) {
      query = McpJson.object().put("namespace", ctx.header("X-Ark-Query-Namespace")).put("name", ctx.header("X-Ark-Query-Name"));
    }
    if (query == null) {
      query = arguments.get("query");
    }
    String toolCall = firstText(meta.get(META_TOOL_CALL), ctx.header("X-Ark-Tool-Call-Id"), arguments.get("toolCallId"));
    return new Caller(agentUri(agent, ctx), query, toolCall);
  }

  /** The asker for calls that take no arguments naming it. */
  static Caller of(RequestContext ctx) {
    return of(ctx, McpJson.object());
  }

  private static String agentUri(String agent, RequestContext ctx) {
    if (agent != null) {
      return ArkUri.require("the calling agent", agent.startsWith("ark://") ? agent : "ark://agents/" + agent);
    }
    String client = ctx.session().clientName();
    String safe = UNSAFE.matcher(client).replaceAll("-");
    return safe.isEmpty() || !Character.isLetterOrDigit(safe.charAt(0)) ? "ark://agents/unknown" : "ark://agents/" + safe;
  }

  private static String firstText(JsonNode meta, String header, JsonNode argument) {
    if (meta != null && !meta.isNull()) {
      if (!meta.isTextual()) {
        throw new InvalidQuestionException("_meta values naming the caller must be strings");
      }
      return meta.textValue();
    }
    if (header != null) {
      return header;
    }
    return argument != null && argument.isTextual() ? argument.textValue() : null;
  }
}
