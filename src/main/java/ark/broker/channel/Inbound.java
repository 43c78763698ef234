package ark.broker.channel;

import ark.broker.bus.Messages.InboundRequest;
import ark.broker.bus.Messages.InboundResponse;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;

/** What a channel does with the requests its service sends the broker. Refusals fail with {@link InboundProblem}. */
public interface Inbound {
  /** @param requestId the REST request's id, for the log lines this request causes anywhere */
  Future<InboundResponse> handle(InboundRequest request, String requestId);

  static InboundResponse json(int status, JsonObject body) {
    return new InboundResponse(status, "application/json", body.toBuffer());
  }

  static InboundResponse empty() {
    return new InboundResponse(200, "text/plain", Buffer.buffer());
  }
}
