package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;

/**
 * The tasks behind {@code tasks/get}, {@code tasks/result}, {@code tasks/list} and {@code tasks/cancel}.
 * Unknown ids (and ids of other callers' tasks) fail with INVALID_PARAMS.
 */
public interface TaskStore {
  /** The Task object. */
  Future<ObjectNode> get(RequestContext ctx, String taskId);

  /** The underlying request's result, once the task is terminal; may wait until then. */
  Future<ObjectNode> result(RequestContext ctx, String taskId);

  /** {@code {tasks, nextCursor?}}. */
  Future<ObjectNode> list(RequestContext ctx, String cursor);

  /** The Task in its final {@code cancelled} state; a task already terminal fails with INVALID_PARAMS. */
  Future<ObjectNode> cancel(RequestContext ctx, String taskId);
}
