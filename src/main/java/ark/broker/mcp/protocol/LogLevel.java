package ark.broker.mcp.protocol;

import java.util.List;

/** The RFC 5424 severities MCP logging uses, least severe first. */
public final class LogLevel {
  public static final List<String> ORDER =
      List.of("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency");

  private LogLevel() {
  }

  public static String require(String level) {
    if (!ORDER.contains(level)) {
      throw JsonRpcError.invalidParams("level must be one of " + ORDER + ", not '" + level + "'");
    }
    return level;
  }

  /** Whether a message at {@code level} passes a session that asked for {@code threshold} and above. */
  public static boolean passes(String level, String threshold) {
    return threshold == null || ORDER.indexOf(level) >= ORDER.indexOf(threshold);
  }
}
