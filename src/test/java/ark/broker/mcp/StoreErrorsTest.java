package ark.broker.mcp;

import ark.broker.bus.StoreFailure;
import ark.broker.bus.StoreFailure.Reason;
import ark.broker.mcp.protocol.JsonRpcError;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How a store failure looks to an MCP client. */
class StoreErrorsTest {
  @Test
  void aRefusedRequestIsTheCallersMistake() {
    for (Reason reason : new Reason[] {Reason.INVALID, Reason.NOT_FOUND, Reason.CONFLICT}) {
      JsonRpcError error = McpVerticle.asRpcError(new StoreFailure(reason, "question q-1 is already answered"));

      assertThat(error.code()).as(reason.name()).isEqualTo(JsonRpcError.INVALID_PARAMS);
      assertThat(error.getMessage()).isEqualTo("question q-1 is already answered");
      assertThat(error.toJson().get("data").get("status").asInt()).isEqualTo(reason.code);
    }
  }

  @Test
  void aForbiddenRequestSaysSoAndCarriesItsStatus() {
    JsonRpcError error = McpVerticle.asRpcError(new StoreFailure(Reason.FORBIDDEN, "sender must be the caller"));

    assertThat(error.code()).isEqualTo(JsonRpcError.INVALID_PARAMS);
    assertThat(error.getMessage()).isEqualTo("Forbidden: sender must be the caller");
    assertThat(error.toJson().get("data").get("status").asInt()).isEqualTo(403);
  }

  @Test
  void anyOtherStoreFailureIsTheStoreBeingAway() {
    JsonRpcError error = McpVerticle.asRpcError(new StoreFailure(Reason.UNAVAILABLE, "Timed out after waiting 10000(ms)"));

    assertThat(error.code()).isEqualTo(JsonRpcError.INTERNAL_ERROR);
    assertThat(error.getMessage()).isEqualTo("The question store is unavailable: Timed out after waiting 10000(ms)");
  }

  @Test
  void otherFailuresAreLeftToTheServer() {
    assertThat(McpVerticle.asRpcError(new IllegalStateException("a bug"))).isNull();
  }
}
