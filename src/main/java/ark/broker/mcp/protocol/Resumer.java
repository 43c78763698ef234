package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Future;

/**
 * Finishes a request whose stream was cut, from the state its stream token carries: the client
 * reconnected with GET and Last-Event-ID, possibly to another replica. Produces the result the
 * original request would have had. Registered with {@link McpFeatures#resumer} together with a check
 * of the state, which runs before anything is resumed: clients can forge tokens.
 */
public interface Resumer {
  Future<JsonNode> resume(RequestContext ctx, JsonNode state);
}
