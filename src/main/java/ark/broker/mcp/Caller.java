package ark.broker.mcp;

import ark.broker.auth.Actor;
import ark.broker.auth.AuthMethod;
import ark.broker.auth.PrincipalKind;
import ark.broker.mcp.protocol.McpJson;
import ark.broker.mcp.protocol.RequestContext;
import ark.broker.question.InvalidQuestionException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

/**
 * Who is asking and for which Query, from (first found wins) the request's {@code _meta}, then HTTP
 * headers, then the tool's arguments. Ark's executor puts them in {@code _meta}; other hosts can set
 * headers on the connection; a bare client can pass them as arguments.
 *
 * <ul>
 *   <li>agent: {@code _meta["ark.mckinsey.com/agent"]}, header {@code X-Ark-Agent}, argument {@code sender}: the
 *       agent the request's principal acts for, which only a service may name for others (403 otherwise); else
 *       the principal itself, or, while the broker runs open, the MCP client's name (the caller then keeps the
 *       open broker's rights to every question, as before authentication existed). A bare name means
 *       {@code ark://agents/<name>}.</li>
 *   <li>query: {@code _meta["ark.mckinsey.com/query"]} {@code {namespace, name}}, headers
 *       {@code X-Ark-Query-Namespace} + {@code X-Ark-Query-Name}, argument {@code query}.</li>
 *   <li>tool call: {@code _meta["ark.mckinsey.com/tool-call-id"]}, header {@code X-Ark-Tool-Call-Id},
 *       argument {@code toolCallId}.</li>
 * </ul>
 *
 * @param actor whom the store lets this request act as
 * @param agent the agent whose questions the request asks and lists as its own
 */
record Caller(Actor actor, String agent, JsonNode query, String toolCallId) {
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
    Actor actor = ((McpCredentials) ctx.credentials()).actFor(agent).inRequest(ctx.logName());
    boolean open = actor.principal().method() == AuthMethod.ANONYMOUS;
    return new Caller(actor, open && agent == null ? clientAgent(ctx) : actor.effective().name(), query, toolCall);
  }

  /** Whom the store lets the request act as, for calls whose arguments name no agent. */
  static Actor actorOf(RequestContext ctx) {
    return of(ctx).actor();
  }

  /** The asker for calls that take no arguments naming it. */
  static Caller of(RequestContext ctx) {
    return of(ctx, McpJson.object());
  }

  /** An open broker's callers have no names of their own: the client's name stands in for the agent's. */
  private static String clientAgent(RequestContext ctx) {
    String client = ctx.session().clientName();
    String safe = UNSAFE.matcher(client).replaceAll("-");
    return safe.isEmpty() || !Character.isLetterOrDigit(safe.charAt(0)) ? "ark://agents/unknown" : "ark://agents/" + safe;
  }

  /**
   * Says what asked questions could not be attributed to, and how to fix it, once per broker (so once per
   * process): the broker works without it, and every later question would only repeat the line.
   */
  static final class Unattributed {
    private static final Logger LOG = LoggerFactory.getLogger(Caller.class);
    private final AtomicBoolean toldNoQuery = new AtomicBoolean();
    private final AtomicBoolean toldNoAgent = new AtomicBoolean();

    void note(Caller caller) {
      if (caller.query() == null && toldNoQuery.compareAndSet(false, true)) {
        LOG.info("A question was asked over MCP without naming its Query (no _meta, no X-Ark-Query-Namespace and "
            + "X-Ark-Query-Name headers, no query argument): such questions are not shown on any Query's status. "
            + "Ark sends the headers when the Query's spec.overrides set them for the broker's MCPServer "
            + "(k8s/examples/identity.example.yaml). Said once.");
      }
      Actor actor = caller.actor();
      if (actor.principal().kind() == PrincipalKind.SERVICE && actor.actingFor() == null
          && toldNoAgent.compareAndSet(false, true)) {
        LOG.warn("Service {} asked over MCP without naming the agent it asks for (no X-Ark-Agent header): its "
            + "questions are its own, so every agent it serves sees them all. Set X-Ark-Agent in each Agent's "
            + "spec.overrides for the broker's MCPServer (k8s/examples/identity.example.yaml). Said once.",
            actor.principal().name());
      }
    }
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
