package ark.broker.mcp.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The protocol layer's pure parts: envelopes, host checks, stream tokens, log levels, versions. */
class ProtocolPiecesTest {

  private static JsonNode json(String text) throws Exception {
    return McpJson.MAPPER.readTree(text);
  }

  @Test
  void envelopesAreSortedIntoRequestsNotificationsAndResponses() throws Exception {
    JsonRpcMessage request = JsonRpcMessage.parse(json("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}"));
    JsonRpcMessage notification = JsonRpcMessage.parse(json("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"));
    JsonRpcMessage response = JsonRpcMessage.parse(json("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}"));

    assertThat(request.isRequest()).isTrue();
    assertThat(request.params().size()).isZero();
    assertThat(notification.isNotification()).isTrue();
    assertThat(response.isResponse()).isTrue();
  }

  @Test
  void malformedEnvelopesNameTheirMistake() {
    assertThatThrownBy(() -> JsonRpcMessage.parse(json("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}")))
        .hasMessageContaining("jsonrpc must be \"2.0\"");
    assertThatThrownBy(() -> JsonRpcMessage.parse(json("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}")))
        .hasMessageContaining("id must be a string or an integer");
    assertThatThrownBy(() -> JsonRpcMessage.parse(json("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}")))
        .hasMessageContaining("method must be a non-empty string");
    assertThatThrownBy(() -> JsonRpcMessage.parse(json("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{}}")))
        .hasMessageContaining("exactly one of result and error");
    assertThatThrownBy(() -> JsonRpcMessage.parse(json("\"ping\"")))
        .isInstanceOf(JsonRpcError.class).hasMessageContaining("must be a JSON object");
  }

  @Test
  void streamTokensCarryWhatIsNeededToResumeAndRejectForgeries() {
    StreamToken token = new StreamToken(McpJson.MAPPER.getNodeFactory().numberNode(42), "ask",
        McpJson.object().put("q", "q-1"), McpJson.MAPPER.getNodeFactory().textNode("progress-7"),
        StreamToken.sessionTag("session-a"));

    assertThat(StreamToken.decode(token.encode() + ".3")).isEqualTo(token);
    assertThat(StreamToken.isStandalone("g.5")).isTrue();
    assertThat(StreamToken.isStandalone("g.five")).isFalse();
    assertThat(StreamToken.sessionTag("session-a")).isNotEqualTo(StreamToken.sessionTag("session-b"))
        .doesNotContain("session");
    for (String forged : List.of("not base64!.1", token.encode() + ".x", token.encode(), ".1",
        encoded("{}"), encoded("[1]"), encoded("{\"i\":1,\"k\":\"ask\"}"),
        encoded("{\"i\":1,\"k\":7,\"n\":\"t\"}"), encoded("{\"i\":{},\"k\":\"ask\",\"n\":\"t\"}"),
        encoded("{\"i\":1,\"k\":\"ask\",\"n\":\"t\",\"p\":[]}"),
        encoded("{\"i\":1,\"k\":\"ask\",\"n\":\"t\",\"extra\":1}"))) {
      assertThatThrownBy(() -> StreamToken.decode(forged)).as(forged)
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("cannot resume from this event id");
    }
  }

  private static String encoded(String json) {
    return java.util.Base64.getUrlEncoder().withoutPadding()
        .encodeToString(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + ".0";
  }

  @Test
  void logLevelsFilterBySeverity() {
    assertThat(LogLevel.passes("info", null)).isTrue();
    assertThat(LogLevel.passes("info", "warning")).isFalse();
    assertThat(LogLevel.passes("error", "warning")).isTrue();
    assertThatThrownBy(() -> LogLevel.require("verbose")).hasMessageContaining("level must be one of");
  }

  @Test
  void versionsNegotiateToOneWeSpeak() {
    assertThat(ProtocolVersions.negotiate("2025-06-18")).isEqualTo("2025-06-18");
    assertThat(ProtocolVersions.negotiate("2024-11-05")).isEqualTo("2025-11-25");
    assertThat(ProtocolVersions.sendsPrimingEvents("2025-11-25")).isTrue();
    assertThat(ProtocolVersions.sendsPrimingEvents("2025-03-26")).isFalse();
  }
}
