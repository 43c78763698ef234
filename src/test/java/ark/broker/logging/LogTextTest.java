package ark.broker.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a client's text becomes in a log line, in either format. */
class LogTextTest {
  /** A client name that would otherwise write a second, forged line, colour the terminal and reverse the text. */
  private static final String HOSTILE = "curl\n2026-01-01T00:00:00.000Z ERROR Main - disk wiped\r\u001b[31mred\u0000\u0085\u2028\u202etxt.exe";

  @Test
  void controlCharactersSeparatorsAndReorderingAreWrittenAsEscapes() {
    String escaped = LogText.escaped(HOSTILE);

    assertThat(escaped).isEqualTo("curl\\n2026-01-01T00:00:00.000Z ERROR Main - disk wiped\\r\\u001b[31mred\\u0000\\u0085"
        + "\\u2028\\u202etxt.exe");
    assertThat(LogText.escaped("plain ark://agents/a, ümlaut and 日本")).isEqualTo("plain ark://agents/a, ümlaut and 日本");
    assertThat(LogText.escaped(null)).isNull();
  }

  @Test
  void aBackslashAndInvisibleCharactersAreWrittenAsEscapesSoNoClientTextLooksLikeAnEscape() {
    String typed = "C:\\temp\\n is not a newline";
    String invisible = "\ufeffad\u200bmin\u200c\u200d\u2060\u00ad\u180e\udb40\udc41";

    assertThat(LogText.escaped(typed)).isEqualTo("C:\\\\temp\\\\n is not a newline");
    assertThat(LogText.escaped("a\nb")).as("a newline and a typed \\n differ").isNotEqualTo(LogText.escaped("a\\nb"));
    assertThat(LogText.escaped(invisible)).isEqualTo("\\ufeffad\\u200bmin\\u200c\\u200d\\u2060\\u00ad\\u180e"
        + "\\udb40\\udc41");
    for (char c : new char[] {0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202e, 0x2066, 0x2069, 0xfeff}) {
      assertThat(LogText.escaped(String.valueOf(c))).isEqualTo(String.format("\\u%04x", (int) c));
    }
  }

  @Test
  void theJsonFormatEscapesInvisibleCharactersAndKeepsItsOwnBackslashes() {
    LoggingEvent event = event("client {}", "C:\\temp\\n \ufeff\u200b\"quoted\"");

    String encoded = new String(LogFormat.json(new LoggerContext()).encode(event), StandardCharsets.UTF_8);

    assertThat(encoded).doesNotContain("\ufeff", "\u200b");
    assertThat(new JsonObject(encoded).getString("formattedMessage")).isEqualTo("client C:\\temp\\n \ufeff\u200b\"quoted\"");
  }

  @Test
  void theTextFormatsMessageIsOneLine() {
    LoggingEvent event = event("MCP session {} started by {}", "abc…", HOSTILE);

    String line = new EscapedMessageConverter().convert(event);

    assertThat(line).doesNotContain("\n", "\r", "\u001b", "\u2028").startsWith("MCP session abc… started by curl\\n2026");
  }

  @Test
  void aStackTraceKeepsItsOwnLinesWhateverItsMessagesQuote() {
    LoggingEvent event = event("Request failed");
    IllegalStateException thrown = new IllegalStateException("bad name " + HOSTILE,
        new IllegalArgumentException("cause\nERROR forged cause"));
    event.setThrowableProxy(new ch.qos.logback.classic.spi.ThrowableProxy(thrown));
    EscapedThrowableConverter converter = new EscapedThrowableConverter();
    converter.setContext(new LoggerContext());
    converter.start();

    String trace = converter.convert(event);

    assertThat(trace).contains("java.lang.IllegalStateException: bad name curl\\n2026-01-01T00:00:00.000Z ERROR Main",
        "Caused by: java.lang.IllegalArgumentException: cause\\nERROR forged cause");
    assertThat(trace.lines()).allSatisfy(line -> assertThat(line).matches("(java\\.|Caused by: |\\s+at |\\s+\\.\\.\\. ).*"));
  }

  @Test
  void theJsonFormatWritesOneObjectPerEventWithTheMessageAsAString() {
    LoggerContext context = new LoggerContext();
    LoggingEvent event = event("MCP session {} started by {}", "abc…", HOSTILE);

    String encoded = new String(LogFormat.json(context).encode(event), StandardCharsets.UTF_8);

    assertThat(encoded).endsWith("\n");
    assertThat(encoded.substring(0, encoded.length() - 1)).doesNotContain("\n", "\r", "\u001b", "\u0085", "\u2028", "\u202e");
    JsonObject json = new JsonObject(encoded);
    assertThat(json.getString("formattedMessage")).isEqualTo("MCP session abc… started by " + HOSTILE);
    assertThat(json.getString("level")).isEqualTo("WARN");
    assertThat(json.getString("loggerName")).isEqualTo("ark.broker.mcp.protocol.McpServer");
    assertThat(json.getLong("timestamp")).isEqualTo(1_700_000_000_000L);
    assertThat(json.fieldNames()).doesNotContain("arguments", "message", "context", "sequenceNumber");
  }

  @Test
  void anUnknownFormatIsRefusedNamingTheSetting() {
    assertThatThrownBy(() -> LogFormat.use("xml\nforged")).hasMessage("log.format (LOG_FORMAT) must be text or json, not 'xml\\nforged'");
  }

  private static LoggingEvent event(String pattern, Object... arguments) {
    LoggerContext context = new LoggerContext();
    LoggingEvent event = new LoggingEvent("ark.broker.mcp.protocol.McpServer",
        context.getLogger("ark.broker.mcp.protocol.McpServer"), Level.WARN, pattern, null, arguments);
    event.setTimeStamp(1_700_000_000_000L);
    return event;
  }
}
