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

  private static final String KEY = "k".repeat(StreamTokenKeys.MIN_LENGTH);
  private static final String NEXT_KEY = "n".repeat(StreamTokenKeys.MIN_LENGTH);

  private static McpSession session(String id, String owner) {
    java.time.Instant now = java.time.Instant.now();
    return new McpSession(id, owner, "2025-11-25", "{}", "{}", null, java.util.Set.of(), now, now);
  }

  @Test
  void streamTokensCarryWhatIsNeededToResumeOnlyInTheSessionTheyWereIssuedTo() {
    StreamTokenKeys keys = StreamTokenKeys.of(List.of(KEY));
    McpSession session = session("session-a", "agent ark://agents/a");
    StreamToken token = new StreamToken(McpJson.MAPPER.getNodeFactory().numberNode(42), "ask",
        McpJson.object().put("q", "q-1"), McpJson.MAPPER.getNodeFactory().textNode("progress-7"));
    String eventId = token.encode(keys, session) + ".3";

    assertThat(StreamToken.decode(eventId, keys, session)).isEqualTo(token);
    assertThat(eventId).doesNotContain("session-a").doesNotContain(KEY);
    assertThat(StreamToken.isStandalone("g.5")).isTrue();
    assertThat(StreamToken.isStandalone("g.five")).isFalse();
    assertThatThrownBy(() -> StreamToken.decode(eventId, keys, session("session-b", "agent ark://agents/a")))
        .as("another session").hasMessageContaining("not a token this server issued to this session");
    assertThatThrownBy(() -> StreamToken.decode(eventId, keys, session("session-a", "agent ark://agents/b")))
        .as("the same session id, another owner").hasMessageContaining("not a token this server issued");
    assertThatThrownBy(() -> StreamToken.decode(eventId, StreamTokenKeys.of(List.of(NEXT_KEY)), session))
        .as("another key").hasMessageContaining("not a token this server issued");
  }

  @Test
  void aNewKeyInFrontSignsWhileTokensOfTheOneBeforeStillResume() {
    McpSession session = session("session-a", "agent ark://agents/a");
    StreamToken token = new StreamToken(McpJson.MAPPER.getNodeFactory().textNode("r"), "ask", McpJson.object().put("q", "q-1"), null);
    String before = token.encode(StreamTokenKeys.of(List.of(KEY)), session) + ".0";
    StreamTokenKeys rotated = StreamTokenKeys.of(List.of(NEXT_KEY, KEY));
    String after = token.encode(rotated, session) + ".0";

    assertThat(StreamToken.decode(before, rotated, session)).isEqualTo(token);
    assertThat(StreamToken.decode(after, StreamTokenKeys.of(List.of(NEXT_KEY)), session)).as("signed with the first").isEqualTo(token);
    assertThatThrownBy(() -> StreamToken.decode(after, StreamTokenKeys.of(List.of(KEY)), session))
        .hasMessageContaining("not a token this server issued");
    assertThatThrownBy(() -> StreamTokenKeys.of(List.of(KEY, "short"))).hasMessageContaining("key 2 of 2 has 5 characters")
        .hasMessageNotContaining("short");
    assertThatThrownBy(() -> StreamTokenKeys.of(List.of())).hasMessageContaining("no key");
  }

  @Test
  void forgedOrMalformedEventIdsAreRefusedEvenWhenSigned() {
    StreamTokenKeys keys = StreamTokenKeys.of(List.of(KEY));
    McpSession session = session("session-a", "agent ark://agents/a");
    String valid = new StreamToken(McpJson.MAPPER.getNodeFactory().numberNode(1), "ask", McpJson.object().put("q", "q-1"), null)
        .encode(keys, session);
    List<String> unsigned = List.of("not base64!.1", valid + ".x", valid, ".1", valid.substring(0, valid.indexOf('.')) + ".1",
        encoded("{\"i\":1,\"k\":\"ask\",\"s\":{\"q\":\"q-1\"}}") + ".AAAA.1", valid + "x.1", "a.b.c.1");
    for (String forged : unsigned) {
      assertThatThrownBy(() -> StreamToken.decode(forged, keys, session)).as(forged)
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("cannot resume from this event id");
    }
    for (String payload : List.of("{}", "[1]", "{\"i\":1}", "{\"i\":1,\"k\":7}", "{\"i\":{},\"k\":\"ask\"}",
        "{\"i\":1,\"k\":\"ask\",\"p\":[]}", "{\"i\":1,\"k\":\"ask\",\"extra\":1}", "not json")) {
      String signed = encoded(payload) + "." + keys.sign(encoded(payload), session) + ".0";
      assertThatThrownBy(() -> StreamToken.decode(signed, keys, session)).as(payload)
          .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("cannot resume from this event id");
    }
  }

  private static String encoded(String json) {
    return java.util.Base64.getUrlEncoder().withoutPadding()
        .encodeToString(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
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
