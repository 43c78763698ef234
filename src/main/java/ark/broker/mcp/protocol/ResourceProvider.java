package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

import java.util.List;

/** A family of resources: which it lists, which templates it offers, which URIs it can read. */
public interface ResourceProvider {
  Future<List<ObjectNode>> list(RequestContext ctx);

  List<ObjectNode> templates();

  boolean owns(String uri);

  /** The {@code contents} of a resource this provider owns; fails with RESOURCE_NOT_FOUND if it has none. */
  Future<ArrayNode> read(RequestContext ctx, String uri);

  /**
   * Succeeds if the resource exists, so it may be subscribed to; fails with RESOURCE_NOT_FOUND if not.
   * Reads it unless the provider knows a cheaper way.
   */
  default Future<Void> exists(RequestContext ctx, String uri) {
    return read(ctx, uri).mapEmpty();
  }
}
