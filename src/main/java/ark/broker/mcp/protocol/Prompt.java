package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

/** A prompt: its {@code prompts/list} entry and what {@code prompts/get} returns for given arguments. */
public record Prompt(ObjectNode definition, Handler handler) {

  public interface Handler {
    Future<ObjectNode> get(RequestContext ctx, ObjectNode arguments);
  }

  public String name() {
    return definition.get("name").asText();
  }
}
